"""Reading and writing suites and boxes, with digests checked on every load.

This module is the only place in ``blackboxes`` that touches the file system.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel

from blackboxes.box import BOX_FILES, BoxEntry, BoxInfo, HiddenInfo, Provenance, SuiteInfo
from oracle_bench.errors import BoxNotFoundError, CorruptBoxError, TamperedBoxError
from oracle_bench.jsonio import atomic_write_bytes, canonical_json, parse_model, sha256_hex

__all__ = [
    "Box",
    "box_digest",
    "load_box",
    "load_suite",
    "load_suite_boxes",
    "write_box",
    "write_suite",
]

_M = TypeVar("_M", bound=BaseModel)


@dataclass(frozen=True)
class Box:
    """A loaded, digest-verified box."""

    info: BoxInfo
    code: str
    hidden: HiddenInfo
    provenance: Provenance
    digest: str
    path: Path


def box_digest(files: dict[str, bytes]) -> tuple[str, dict[str, str]]:
    """The box digest and per-file sha256 for a mapping of file name to bytes."""
    per_file = {name: sha256_hex(files[name]) for name in sorted(files)}
    lines = "".join(f"{name}:{digest}\n" for name, digest in per_file.items())
    return sha256_hex(lines), per_file


def _model_bytes(model: BaseModel) -> bytes:
    return canonical_json(model.model_dump(mode="json")).encode("utf-8")


def write_box(
    suite_dir: Path, info: BoxInfo, code: str, hidden: HiddenInfo, provenance: Provenance
) -> BoxEntry:
    """Write a box's four files atomically and return its suite entry."""
    files = {
        "box.json": _model_bytes(info),
        "blackbox.py": code.encode("utf-8"),
        "hidden.json": _model_bytes(hidden),
        "provenance.json": _model_bytes(provenance),
    }
    box_dir = Path(suite_dir) / "boxes" / info.id
    for name, data in files.items():
        atomic_write_bytes(box_dir / name, data)
    digest, per_file = box_digest(files)
    return BoxEntry(id=info.id, digest=digest, files=per_file)


def write_suite(suite_dir: Path, suite: SuiteInfo, name: str = "suite.json") -> Path:
    """Write suite.json last, so a suite with a manifest is a complete suite."""
    path = Path(suite_dir) / name
    atomic_write_bytes(path, _model_bytes(suite))
    return path


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


def load_suite(suite_dir: Path, name: str = "suite.json") -> SuiteInfo:
    """Load and validate suite.json (or another manifest of the same schema)."""
    suite_dir = Path(suite_dir)
    if not suite_dir.is_dir():
        raise BoxNotFoundError("suite directory does not exist", suite_dir)
    path = suite_dir / name
    return _parse(path, _read_bytes(path), SuiteInfo)


def load_box(suite_dir: Path, entry: BoxEntry) -> Box:
    """Load one box, checking every file against the digests in suite.json."""
    box_dir = Path(suite_dir) / "boxes" / entry.id
    if not box_dir.is_dir():
        raise BoxNotFoundError(f"box {entry.id!r} listed in suite.json is missing", box_dir)
    files = {name: _read_bytes(box_dir / name) for name in BOX_FILES}
    for name in BOX_FILES:
        expected = entry.files.get(name)
        if expected is None:
            raise CorruptBoxError(f"suite.json records no digest for {name}", box_dir / name)
        if sha256_hex(files[name]) != expected:
            raise TamperedBoxError(
                "content does not match the digest recorded in suite.json", box_dir / name
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
        code=code,
        hidden=_parse(box_dir / "hidden.json", files["hidden.json"], HiddenInfo),
        provenance=_parse(box_dir / "provenance.json", files["provenance.json"], Provenance),
        digest=digest,
        path=box_dir,
    )


def load_suite_boxes(suite_dir: Path) -> tuple[SuiteInfo, list[Box]]:
    """Load suite.json and every box it lists."""
    suite = load_suite(suite_dir)
    return suite, [load_box(suite_dir, entry) for entry in suite.boxes]
