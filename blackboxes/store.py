"""Reading and writing suites and boxes, with digests checked on every load.

This module is the only place in ``blackboxes`` that touches the file system.

A manifest comes in pairs: the public ``suite.json`` and the owner's ``owner.json``
(``.suite.partial.json`` and ``.owner.partial.json`` for a suite still being written).
The owner file is written first, so a public manifest always has its owner file.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel

from blackboxes.box import (
    BOX_FILES,
    BoxEntry,
    BoxFacts,
    BoxInfo,
    HiddenInfo,
    Provenance,
    SuiteInfo,
    SuiteOwnerInfo,
)
from oracle_bench.errors import BoxNotFoundError, CorruptBoxError, TamperedBoxError
from oracle_bench.jsonio import atomic_write_bytes, canonical_json, parse_model, sha256_hex

__all__ = [
    "OWNER_NAME",
    "SUITE_NAME",
    "Box",
    "WrittenBox",
    "box_digest",
    "load_box",
    "load_owner",
    "load_suite",
    "load_suite_boxes",
    "owner_name",
    "seed_commitment",
    "write_box",
    "write_suite",
]

_M = TypeVar("_M", bound=BaseModel)

SUITE_NAME = "suite.json"
OWNER_NAME = "owner.json"


@dataclass(frozen=True)
class Box:
    """A loaded, digest-verified box: its public ``info`` and everything owner-side."""

    info: BoxInfo
    facts: BoxFacts
    code: str
    hidden: HiddenInfo
    provenance: Provenance
    digest: str
    path: Path


@dataclass(frozen=True)
class WrittenBox:
    """A box just written: its suite.json entry and its files' sha256 (for owner.json)."""

    entry: BoxEntry
    files: dict[str, str]


def seed_commitment(seed: int) -> str:
    """The public commitment to a secret suite seed (sha256 of a fixed phrase and the
    seed; the seeds are 128 random bits, so it cannot be inverted by trying seeds)."""
    return sha256_hex(f"oracle-bench suite seed commitment\n{seed}\n")


def owner_name(name: str) -> str:
    """The owner file paired with a public manifest: ``suite.json`` -> ``owner.json``,
    ``.suite.partial.json`` -> ``.owner.partial.json``."""
    return name.replace("suite", "owner", 1) if "suite" in name else f"{name}.owner"


def box_digest(files: dict[str, bytes]) -> tuple[str, dict[str, str]]:
    """The box digest and per-file sha256 for a mapping of file name to bytes."""
    per_file = {name: sha256_hex(files[name]) for name in sorted(files)}
    lines = "".join(f"{name}:{digest}\n" for name, digest in per_file.items())
    return sha256_hex(lines), per_file


def _model_bytes(model: BaseModel) -> bytes:
    return canonical_json(model.model_dump(mode="json")).encode("utf-8")


def write_box(
    suite_dir: Path,
    info: BoxInfo,
    facts: BoxFacts,
    code: str,
    hidden: HiddenInfo,
    provenance: Provenance,
) -> WrittenBox:
    """Write a box's five files atomically; returns its entry and file digests."""
    files = {
        "box.json": _model_bytes(info),
        "blackbox.py": code.encode("utf-8"),
        "facts.json": _model_bytes(facts),
        "hidden.json": _model_bytes(hidden),
        "provenance.json": _model_bytes(provenance),
    }
    box_dir = Path(suite_dir) / "boxes" / info.id
    for name, data in files.items():
        atomic_write_bytes(box_dir / name, data)
    digest, per_file = box_digest(files)
    return WrittenBox(BoxEntry(id=info.id, digest=digest), per_file)


def write_suite(
    suite_dir: Path, suite: SuiteInfo, owner: SuiteOwnerInfo, name: str = SUITE_NAME
) -> Path:
    """Write the owner file, then the public manifest (last: a suite with a manifest is a
    complete suite). Refuses a pair that does not match (seed, commitment, boxes)."""
    _check_pair(suite, owner, Path(suite_dir) / name)
    atomic_write_bytes(Path(suite_dir) / owner_name(name), _model_bytes(owner))
    path = Path(suite_dir) / name
    atomic_write_bytes(path, _model_bytes(suite))
    return path


def _check_pair(suite: SuiteInfo, owner: SuiteOwnerInfo, path: Path) -> None:
    if owner.public != (suite.seed is not None):
        raise CorruptBoxError("the seed is public in one manifest and secret in the other", path)
    if suite.seed is not None and suite.seed != owner.seed:
        raise CorruptBoxError("suite.json and its owner file record different seeds", path)
    if suite.seed is None and suite.seed_commitment != seed_commitment(owner.seed):
        raise CorruptBoxError("the seed commitment does not match the owner's seed", path)
    missing = [e.id for e in suite.boxes if e.id not in owner.files]
    if missing:
        raise CorruptBoxError(f"the owner file lists no files of box {missing[0]!r}", path)


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise BoxNotFoundError("file is missing", path) from None
    except IsADirectoryError:
        raise CorruptBoxError("expected a file, found a directory", path) from None


def _parse(path: Path, data: bytes, model: type[_M]) -> _M:
    try:
        return parse_model(data, model)
    except ValueError as exc:
        raise CorruptBoxError(str(exc), path) from None


def load_suite(suite_dir: Path, name: str = SUITE_NAME) -> SuiteInfo:
    """Load and validate suite.json (or another manifest of the same schema)."""
    suite_dir = Path(suite_dir)
    if not suite_dir.exists():
        raise BoxNotFoundError("suite directory does not exist", suite_dir)
    if not suite_dir.is_dir():
        raise CorruptBoxError("is a file, not a suite directory", suite_dir)
    path = suite_dir / name
    data = _read_bytes(path)
    if _schema_version(data) == 1:
        raise CorruptBoxError(
            "a suite of an earlier oracle-bench (schema 1: no owner-side files); make it "
            "again with oracle-gen (same arguments and --overwrite)",
            path,
        )
    return _parse(path, data, SuiteInfo)


def _schema_version(data: bytes) -> object:
    try:
        raw = json.loads(data)
    except ValueError:
        return None
    return raw.get("schema_version") if isinstance(raw, dict) else None


def load_owner(suite_dir: Path, suite: SuiteInfo, name: str = SUITE_NAME) -> SuiteOwnerInfo:
    """The owner file paired with ``suite`` (read from manifest ``name``), checked
    against it: the seed or its commitment, and a file list for every box."""
    path = Path(suite_dir) / owner_name(name)
    owner = _parse(path, _read_bytes(path), SuiteOwnerInfo)
    _check_pair(suite, owner, path)
    return owner


def load_box(suite_dir: Path, entry: BoxEntry, owner: SuiteOwnerInfo | None = None) -> Box:
    """Load one box, checking every file against the digests in owner.json (read here
    unless given) and the box digest in suite.json."""
    suite_dir = Path(suite_dir)
    if owner is None:
        owner = load_owner(suite_dir, load_suite(suite_dir))
    box_dir = suite_dir / "boxes" / entry.id
    if not box_dir.is_dir():
        raise BoxNotFoundError(f"box {entry.id!r} listed in suite.json is missing", box_dir)
    expected_files = owner.files.get(entry.id)
    if expected_files is None:
        raise CorruptBoxError(f"owner.json lists no files of box {entry.id!r}", box_dir)
    files = {name: _read_bytes(box_dir / name) for name in BOX_FILES}
    for name in BOX_FILES:
        expected = expected_files.get(name)
        if expected is None:
            raise CorruptBoxError(f"owner.json records no digest for {name}", box_dir / name)
        if sha256_hex(files[name]) != expected:
            raise TamperedBoxError(
                "content does not match the digest recorded for it", box_dir / name
            )
    digest, _ = box_digest(files)
    if digest != entry.digest:
        raise TamperedBoxError("box digest does not match suite.json", box_dir)
    info = _parse(box_dir / "box.json", files["box.json"], BoxInfo)
    if info.id != entry.id:
        raise CorruptBoxError(f"box id {info.id!r} differs from its folder", box_dir / "box.json")
    try:
        code = files["blackbox.py"].decode("utf-8")
    except UnicodeDecodeError:
        raise CorruptBoxError("not UTF-8 text", box_dir / "blackbox.py") from None
    return Box(
        info=info,
        facts=_parse(box_dir / "facts.json", files["facts.json"], BoxFacts),
        code=code,
        hidden=_parse(box_dir / "hidden.json", files["hidden.json"], HiddenInfo),
        provenance=_parse(box_dir / "provenance.json", files["provenance.json"], Provenance),
        digest=digest,
        path=box_dir,
    )


def load_suite_boxes(
    suite_dir: Path, only: Sequence[str] | None = None
) -> tuple[SuiteInfo, list[Box]]:
    """Load suite.json, its owner file and every box it lists (``only``: those boxes, in
    the suite's order; a folder holding one box of a suite, as a one-box image does)."""
    suite = load_suite(suite_dir)
    owner = load_owner(suite_dir, suite)
    entries = suite.boxes
    if only is not None:
        listed = {entry.id for entry in entries}
        missing = [box for box in only if box not in listed]
        if missing:
            raise BoxNotFoundError(f"no box {missing[0]!r} in the suite", suite_dir)
        entries = [entry for entry in entries if entry.id in set(only)]
    return suite, [load_box(suite_dir, entry, owner) for entry in entries]
