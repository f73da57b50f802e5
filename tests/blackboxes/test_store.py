"""The Box format on disk: round trip, digests, and typed errors naming the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from blackboxes.box import (
    BOX_FILES,
    Attempt,
    BoxFacts,
    BoxInfo,
    HiddenInfo,
    Provenance,
    SuiteInfo,
    SuiteOwnerInfo,
)
from blackboxes.store import (
    box_digest,
    load_box,
    load_owner,
    load_suite,
    load_suite_boxes,
    seed_commitment,
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


def _write(tmp_path: Path, n: int = 2, seed: int | None = 0) -> Path:
    entries = []
    for i in range(n):
        info = BoxInfo(
            id=f"T-easy-{i:04d}",
            family="T",
            level="easy",
            task_intro="Send a plaintext.",
            input_schema="letters",
            output_schema="letters",
        )
        facts = BoxFacts(rule_kind="reverse", log2_h=4.7, log2_y=150.4, t_info=1)
        hidden = HiddenInfo(
            rule_kind="reverse", params={"k": i}, description="reverse", test_seed=i
        )
        prov = Provenance(
            backend="procedural",
            tool_version="0",
            accepted=True,
            attempts=[Attempt(index=1, code_sha256="0" * 64, verdict="correct")],
        )
        entries.append(write_box(tmp_path, info, facts, CODE, hidden, prov))
    secret = 2**127 + 12345
    suite = SuiteInfo(
        name="t",
        seed=seed,
        seed_commitment=None if seed is not None else seed_commitment(secret),
        family="T",
        level="easy",
        tool_version="0",
        backend="procedural",
        boxes=[w.entry for w in entries],
    )
    owner = SuiteOwnerInfo(
        seed=secret if seed is None else seed,
        public=seed is not None,
        files={w.entry.id: w.files for w in entries},
    )
    write_suite(tmp_path, suite, owner)
    return tmp_path


def test_round_trip(tmp_path: Path) -> None:
    _write(tmp_path)
    suite, boxes = load_suite_boxes(tmp_path)
    assert [b.info.id for b in boxes] == ["T-easy-0000", "T-easy-0001"]
    assert boxes[1].hidden.params == {"k": 1}
    assert boxes[0].code == CODE
    assert boxes[0].digest == suite.boxes[0].digest
    files = {name: (tmp_path / "boxes" / "T-easy-0000" / name).read_bytes() for name in BOX_FILES}
    assert box_digest(files)[0] == suite.boxes[0].digest
    assert boxes[0].facts.rule_kind == "reverse"


def test_public_files_say_nothing_of_the_rule(tmp_path: Path) -> None:
    _write(tmp_path, seed=None)
    suite = json.loads((tmp_path / "suite.json").read_text())
    box = json.loads((tmp_path / "boxes" / "T-easy-0000" / "box.json").read_text())
    text = json.dumps([suite, box])
    for secret in ("reverse", "log2", "t_info", "rule_kind", "files", str(2**127 + 12345)):
        assert secret not in text, secret
    assert suite["seed"] is None and suite["seed_commitment"] == seed_commitment(2**127 + 12345)
    assert set(suite["boxes"][0]) == {"id", "digest"}  # per-file digests are the owner's
    owner = load_owner(tmp_path, load_suite(tmp_path))
    assert owner.seed == 2**127 + 12345 and not owner.public


def test_owner_file_must_match_the_manifest(tmp_path: Path) -> None:
    _write(tmp_path, seed=None)
    raw = json.loads((tmp_path / "owner.json").read_text())
    raw["seed"] += 1
    (tmp_path / "owner.json").write_text(json.dumps(raw))
    with pytest.raises(CorruptBoxError, match="commitment"):
        load_suite_boxes(tmp_path)
    (tmp_path / "owner.json").unlink()
    with pytest.raises(BoxNotFoundError) as info:
        load_suite_boxes(tmp_path)
    assert info.value.path == tmp_path / "owner.json"


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


@pytest.mark.parametrize("name", BOX_FILES)
def test_missing_box_file_names_it(tmp_path: Path, name: str) -> None:
    _write(tmp_path)
    target = tmp_path / "boxes" / "T-easy-0001" / name
    target.unlink()
    suite = load_suite(tmp_path)
    with pytest.raises(BoxNotFoundError) as info:
        load_box(tmp_path, suite.boxes[1])
    assert info.value.path == target
    assert str(target) in str(info.value)


@pytest.mark.parametrize("name", BOX_FILES)
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
    owner = json.loads((tmp_path / "owner.json").read_text())
    files = {n: (box_json.parent / n).read_bytes() for n in BOX_FILES}
    digest, per_file = box_digest(files)
    raw["boxes"][0].update(digest=digest)
    owner["files"]["T-easy-0000"] = per_file
    (tmp_path / "suite.json").write_text(json.dumps(raw))
    (tmp_path / "owner.json").write_text(json.dumps(owner))
    with pytest.raises(CorruptBoxError) as info:
        load_box(tmp_path, load_suite(tmp_path).boxes[0])
    assert info.value.path == box_json


def test_a_suite_of_the_earlier_schema_says_how_to_make_it_again(tmp_path: Path) -> None:
    _write(tmp_path)
    raw = json.loads((tmp_path / "suite.json").read_text())
    raw["schema_version"] = 1
    (tmp_path / "suite.json").write_text(json.dumps(raw))
    with pytest.raises(CorruptBoxError, match=r"earlier oracle-bench.*--overwrite"):
        load_suite(tmp_path)
