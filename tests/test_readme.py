"""The README's runnable Python examples run as written (blocks starting ``# example: NAME``)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
_BLOCK = re.compile(r"```python\n(# example: ([\w-]+).*?)```", re.S)
EXAMPLES = {m[2]: m[1] for m in _BLOCK.finditer(README.read_text(encoding="utf-8"))}


def test_the_readme_has_its_examples() -> None:
    assert "python-api" in EXAMPLES


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_a_readme_example_runs(name: str, tmp_path: Path) -> None:
    script = tmp_path / f"{name}.py"
    script.write_text(EXAMPLES[name], encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
