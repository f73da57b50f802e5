"""What a served suite tells anyone who asks: its public files and nothing else."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from blackboxes.box import SuiteInfo
from blackboxes.store import Box

__all__ = ["describe_box", "describe_suite"]


def describe_box(box: Box, kind: str) -> dict[str, Any]:
    """The public box.json as written, its digest and the episode kind that plays it.

    Only ``box.info`` (box.json) is read: never the code, facts, hidden.json or provenance.
    """
    return {
        "id": box.info.id,
        "kind": kind,
        "digest": box.digest,
        "box": box.info.model_dump(mode="json"),
        "intro": box.info.task_intro,
    }


def describe_suite(
    suite: SuiteInfo,
    boxes: Sequence[Box],
    kind: str,
    settings: dict[str, Any],
    suite_json_sha256: str,
) -> dict[str, Any]:
    """suite.json as written (public: a secret suite's seed is not in it) and its sha256,
    the served boxes and the episode settings every episode is played with."""
    return {
        "suite": suite.model_dump(mode="json"),
        "suite_json_sha256": suite_json_sha256,
        "kind": kind,
        "settings": settings,
        "boxes": [describe_box(box, kind) for box in boxes],
    }
