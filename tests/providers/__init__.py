"""Tests of the providers package."""
