"""Tests of the evaluator package."""
