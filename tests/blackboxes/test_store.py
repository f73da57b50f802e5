"""The Box format on disk: round trip, digests, and typed errors naming the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from blackboxes.box import Attempt, BoxInfo, HiddenInfo, Provenance, SuiteInfo
from blackboxes.store import (
    box_digest,
    load_box,
    load_suite,
    load_suite_boxes,
    write_box,
    write_suite,
)
from oracle_bench.errors import (
    BoxError,
    BoxNotFoundError,
    CorruptBoxError,
    OracleBenchError,
    TamperedBoxError,
)

CODE = "def blackbox(plaintext):\n    return plaintext[::-1]\n"


def _write(tmp_path: Path, n: int = 2) -> Path:
    entries = []
    for i in range(n):
        info = BoxInfo(
            id=f"T-easy-{i:04d}",
            family="T",
            level="easy",
            rule_kind="reverse",
            task_intro="Send a plaintext.",
            input_schema="letters",
            output_schema="letters",
            log2_h=4.7,
            log2_y=150.4,
            t_info=1,
        )
        hidden = HiddenInfo(
            rule_kind="reverse", params={"k": i}, description="reverse", test_seed=i
        )
        prov = Provenance(
            backend="procedural",
            tool_version="0",
            accepted=True,
            attempts=[Attempt(index=1, code_sha256="0" * 64, verdict="correct")],
        )
        entries.append(write_box(tmp_path, info, CODE, hidden, prov))
    suite = SuiteInfo(
        name="t",
        seed=0,
        family="T",
        level="easy",
        tool_version="0",
        backend="procedural",
        boxes=entries,
    )
    write_suite(tmp_path, suite)
    return tmp_path


def test_round_trip(tmp_path: Path) -> None:
    _write(tmp_path)
    suite, boxes = load_suite_boxes(tmp_path)
    assert [b.info.id for b in boxes] == ["T-easy-0000", "T-easy-0001"]
    assert boxes[1].hidden.params == {"k": 1}
    assert boxes[0].code == CODE
    assert boxes[0].digest == suite.boxes[0].digest
    files = {
        name: (tmp_path / "boxes" / "T-easy-0000" / name).read_bytes()
        for name in ("box.json", "blackbox.py", "hidden.json", "provenance.json")
    }
    assert box_digest(files)[0] == suite.boxes[0].digest


def test_files_are_canonical_json(tmp_path: Path) -> None:
    _write(tmp_path)
    text = (tmp_path / "boxes" / "T-easy-0000" / "box.json").read_text()
    assert text.endswith("}\n")
    assert list(json.loads(text)) == sorted(json.loads(text))


def test_writing_twice_is_byte_identical(tmp_path: Path) -> None:
    a = _write(tmp_path / "a")
    b = _write(tmp_path / "b")
    for path in sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file()):
        assert (a / path).read_bytes() == (b / path).read_bytes(), path


def test_missing_suite(tmp_path: Path) -> None:
    with pytest.raises(BoxNotFoundError) as info:
        load_suite(tmp_path / "nope")
    assert info.value.path == tmp_path / "nope"
    assert isinstance(info.value, FileNotFoundError)


@pytest.mark.parametrize("name", ["box.json", "blackbox.py", "hidden.json", "provenance.json"])
def test_missing_box_file_names_it(tmp_path: Path, name: str) -> None:
    _write(tmp_path)
    target = tmp_path / "boxes" / "T-easy-0001" / name
    target.unlink()
    suite = load_suite(tmp_path)
    with pytest.raises(BoxNotFoundError) as info:
        load_box(tmp_path, suite.boxes[1])
    assert info.value.path == target
    assert str(target) in str(info.value)


@pytest.mark.parametrize("name", ["box.json", "blackbox.py", "hidden.json", "provenance.json"])
def test_tampered_file_names_it(tmp_path: Path, name: str) -> None:
    _write(tmp_path)
    target = tmp_path / "boxes" / "T-easy-0000" / name
    target.write_bytes(target.read_bytes().replace(b"e", b"E", 1))
    suite = load_suite(tmp_path)
    with pytest.raises(TamperedBoxError) as info:
        load_box(tmp_path, suite.boxes[0])
    assert info.value.path == target
    assert isinstance(info.value, BoxError) and isinstance(info.value, OracleBenchError)


def test_corrupt_suite_json(tmp_path: Path) -> None:
    _write(tmp_path)
    (tmp_path / "suite.json").write_text("{not json")
    with pytest.raises(CorruptBoxError) as info:
        load_suite(tmp_path)
    assert info.value.path == tmp_path / "suite.json"
    assert "not valid JSON" in str(info.value)


def test_schema_violation_is_corrupt(tmp_path: Path) -> None:
    _write(tmp_path)
    raw = json.loads((tmp_path / "suite.json").read_text())
    raw["boxes"][0]["surprise"] = 1
    (tmp_path / "suite.json").write_text(json.dumps(raw))
    with pytest.raises(CorruptBoxError) as info:
        load_suite(tmp_path)
    assert "boxes.0.surprise" in str(info.value)


def test_consistently_tampered_box_still_fails_validation(tmp_path: Path) -> None:
    """Rewriting a file and its digests together passes the digest but not the schema."""
    _write(tmp_path)
    box_json = tmp_path / "boxes" / "T-easy-0000" / "box.json"
    box_json.write_text('{"id": "T-easy-0000"}')
    raw = json.loads((tmp_path / "suite.json").read_text())
    files = {
        n: (box_json.parent / n).read_bytes()
        for n in ("box.json", "blackbox.py", "hidden.json", "provenance.json")
    }
    digest, per_file = box_digest(files)
    raw["boxes"][0].update(digest=digest, files=per_file)
    (tmp_path / "suite.json").write_text(json.dumps(raw))
    with pytest.raises(CorruptBoxError) as info:
        load_box(tmp_path, load_suite(tmp_path).boxes[0])
    assert info.value.path == box_json
