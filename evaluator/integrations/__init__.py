"""Adapters that run oracle-bench suites inside other evaluation frameworks.

Each adapter is a subpackage importing its framework lazily, so that nothing here is
imported by default code paths: ``evaluator.integrations.inspect`` (Inspect AI, the
``inspect`` extra).
"""

from __future__ import annotations

__all__: list[str] = []
