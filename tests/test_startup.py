"""Fast start (issue 9): --help, --version and parsing import none of the heavy modules.

Each check runs in a fresh interpreter (this one has imported everything already) and
asserts what ``sys.modules`` holds afterwards: an assertion on imports, not a timing.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# The graph, the LLM SDKs and their HTTP stack: none is needed before arguments parse.
ALWAYS_HEAVY = frozenset(
    {
        "langgraph",
        "langchain_core",
        "langsmith",
        "openai",
        "anthropic",
        "httpx",
        "jinja2",
        "numpy",
        "scipy",
        # The HTML report's figures only.
        "matplotlib",
        # The optional extras: only --executor ray and the Inspect adapter import them.
        "ray",
        "inspect_ai",
    }
)
PACKAGES = ("oracle_bench", "blackboxes", "sandbox", "providers", "generator", "evaluator")


def _imported_after(code: str) -> set[str]:
    """Top-level names of the modules a fresh interpreter holds after running ``code``."""
    # The last line of stdout, after whatever ``code`` prints (a help text).
    listing = "print(json.dumps(sorted({m.partition('.')[0] for m in sys.modules})))"
    probe = f"{code}\nimport json, sys\n{listing}"
    return set(json.loads(_run(probe).splitlines()[-1]))


def _run(probe: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _main_exits(module: str, *argv: str) -> str:
    """Code that runs ``module.main(argv)`` the way its console script does, and checks that
    it exits 0 (returned, or raised by argparse)."""
    return (
        f"from {module} import main\n"
        "try:\n"
        f"    code = main({list(argv)!r})\n"
        "except SystemExit as exc:\n"
        "    code = exc.code\n"
        "assert code in (0, None), code"
    )


# (module, argv, heavy top-level packages it must not import besides ALWAYS_HEAVY)
CASES = [
    ("generator.cli", ("--help",), {"pydantic", "rich", "sqlite3", "RestrictedPython"}),
    ("evaluator.cli", ("--help",), {"rich", "sqlite3"}),
    ("evaluator.cli", ("--version",), {"rich", "sqlite3"}),
    ("evaluator.cli", ("report", "--help"), {"pydantic", "rich", "RestrictedPython"}),
    ("evaluator.cli", ("report", "--version"), {"pydantic", "rich", "RestrictedPython"}),
    ("evaluator.play", ("--help",), {"pydantic", "RestrictedPython"}),
    ("providers.loopback", ("--help",), {"rich"}),
]


def _case_id(value: object) -> str:
    # Sorted: a set's order varies with the hash seed, and pytest-xdist's workers must
    # collect the same ids.
    return ",".join(sorted(value)) if isinstance(value, set | frozenset) else str(value)


@pytest.mark.parametrize(("module", "argv", "heavy"), CASES, ids=_case_id)
def test_help_imports_nothing_heavy(module: str, argv: tuple[str, ...], heavy: set[str]) -> None:
    imported = _imported_after(_main_exits(module, *argv))
    assert imported & (ALWAYS_HEAVY | heavy) == set()


@pytest.mark.parametrize(
    ("module", "build"),
    [
        ("generator.cli", "build_parser"),
        ("evaluator.cli", "_parser"),
        ("evaluator._report_cli", "_parser"),
        ("evaluator.play", "_parser"),
        ("providers.loopback", "_parser"),
    ],
)
def test_parser_imports_no_graph_or_sdk(module: str, build: str) -> None:
    imported = _imported_after(f"import {module} as m; m.{build}().format_help()")
    assert imported & ALWAYS_HEAVY == set()


def test_packages_import_lazily() -> None:
    """Importing every package imports none of what their names are defined with."""
    imported = _imported_after(f"import {', '.join(PACKAGES)}, templates")
    assert imported & (ALWAYS_HEAVY | {"pydantic", "rich", "RestrictedPython", "sqlite3"}) == set()


def test_a_name_imports_its_submodule_only() -> None:
    """``from evaluator import parse_spec`` imports evaluator.spec (and the kinds' light
    option records it declares), not the runner."""
    spec, modules = _run(
        "import sys\n"
        "from evaluator import parse_spec\n"
        "print(parse_spec('10@1'))\n"
        "print(sorted(m for m in sys.modules if m.startswith('evaluator')))"
    ).splitlines()
    assert spec == "10@1"
    assert modules == str(
        ["evaluator", "evaluator.kinds", "evaluator.kinds._base", "evaluator.spec"]
    )
