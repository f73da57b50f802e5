"""``python -m evaluator.serve SUITE ...``: the same as ``oracle-serve``."""

from __future__ import annotations

import sys

from evaluator.serve.cli import main

if __name__ == "__main__":
    sys.exit(main())
