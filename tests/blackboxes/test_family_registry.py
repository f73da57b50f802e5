"""The family registry: codes found without importing a family, each imported on demand."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from blackboxes.families import family_names, get_family
from oracle_bench.errors import UnknownNameError

ROOT = Path(__file__).resolve().parents[2]


def test_every_listed_code_is_the_family_its_subpackage_registers() -> None:
    assert family_names() == ["CII", "CRI", "DFA", "ERI", "GSI", "IPI", "PSI"]
    for code in family_names():
        assert get_family(code).name == code
        assert get_family(code.lower()) is get_family(code)


def test_an_unknown_family_lists_the_codes() -> None:
    with pytest.raises(UnknownNameError) as caught:
        get_family("xyz")
    assert (caught.value.what, caught.value.name) == ("category", "xyz")
    assert caught.value.available == family_names()
    assert (
        str(caught.value) == "unknown category 'xyz'; available: CII, CRI, DFA, ERI, GSI, IPI, PSI"
    )


def test_listing_imports_no_family_and_get_family_only_its_own() -> None:
    probe = (
        "import sys\n"
        "from blackboxes.families import family_names, get_family\n"
        "loaded = lambda: sorted(m for m in sys.modules if m.count('.') == 2"
        " and m.startswith('blackboxes.families.') and not m.split('.')[2].startswith('_'))\n"
        "print(family_names(), loaded())\n"
        "get_family('eri')\n"
        "print(loaded())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "['CII', 'CRI', 'DFA', 'ERI', 'GSI', 'IPI', 'PSI'] []",
        "['blackboxes.families.eri']",
    ]
