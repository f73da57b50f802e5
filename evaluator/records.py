"""What every episode record shares, whatever its kind: the status, the error for a file
that cannot be read back, and the strict reader."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ValidationError

from oracle_bench.errors import EvaluationError
from oracle_bench.jsonio import parse_model

__all__ = ["CorruptTrajectoryError", "EpisodeStatus", "read_record", "validate_record"]

EpisodeStatus = Literal["completed", "failed"]
_M = TypeVar("_M", bound=BaseModel)


class CorruptTrajectoryError(EvaluationError, ValueError):
    """A trajectory file is missing, unreadable or fails its schema. ``path`` names it."""

    def __init__(self, message: str, path: Path) -> None:
        self.path = Path(path)
        super().__init__(f"{path}: {message}")


def read_record(path: Path, model: type[_M]) -> _M:
    """Load a JSON record written by this package and validate it against ``model``.

    Missing, unreadable or invalid files raise :class:`CorruptTrajectoryError` naming the file.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise CorruptTrajectoryError("file is missing", path) from None
    except OSError as exc:
        raise CorruptTrajectoryError(f"unreadable ({exc})", path) from None
    try:
        return parse_model(data, model)
    except ValueError as exc:
        raise CorruptTrajectoryError(str(exc), path) from None


def validate_record(raw: Any, model: type[_M], path: Path) -> _M:
    """``raw`` (parsed JSON) validated against ``model``; :class:`CorruptTrajectoryError`
    naming ``path`` and the first problem."""
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "<root>"
        raise CorruptTrajectoryError(
            f"invalid {model.__name__}: {where}: {first['msg']} ({exc.error_count()} error(s))",
            path,
        ) from None
