"""Who designs a suite's rules (``oracle-gen --design``), apart so that the parser reads
the choices without importing the generator."""

from __future__ import annotations

from typing import Literal

__all__ = ["DESIGNS", "Design"]

Design = Literal["reference", "llm"]
DESIGNS: tuple[Design, ...] = ("reference", "llm")
