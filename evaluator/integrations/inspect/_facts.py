"""What the adapter writes into an Inspect log besides the transcript, as pydantic models:
read back from a log, they are validated like any file from outside."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from blackboxes.store import Box

__all__ = ["RECORD_KEY", "SCORER_NAME", "TASK_KEY", "SampleFacts", "TaskFacts", "sample_id"]

TASK_KEY = "oracle_bench"
"""The task's metadata entry holding :class:`TaskFacts`."""
SCORER_NAME = "oracle_score"
"""The scorer, and the key of its score in every sample."""
RECORD_KEY = "record"
"""The score's metadata entry holding the episode's record (our trajectory JSON)."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TaskFacts(_Model):
    """The run's definition, in the log's task metadata: what a run folder's manifest says."""

    schema_version: int = 1
    kind: str
    suite: str
    seed: int
    repeats: int = Field(ge=1)
    boxes: list[str]
    arguments: dict[str, Any]
    """The kind's manifest arguments (``EpisodeKind.arguments``): spec and feedback, or
    budget factor, buckets and similarity length."""


class SampleFacts(_Model):
    """A sample's metadata: the box's public facts (box.json: what an agent may see) and
    the job. Never its code, hidden.json, facts.json or expected answers."""

    suite: str
    box_id: str
    box_digest: str
    repetition: int = Field(ge=0)
    family: str
    level: str
    input_schema: str
    output_schema: str
    interface: dict[str, Any] = Field(default_factory=dict)
    dfa: dict[str, Any] | None = None

    @classmethod
    def of(cls, suite: str, box: Box, repetition: int) -> SampleFacts:
        info = box.info
        return cls(
            suite=suite,
            box_id=info.id,
            box_digest=box.digest,
            repetition=repetition,
            family=info.family,
            level=info.level,
            input_schema=info.input_schema,
            output_schema=info.output_schema,
            interface=dict(info.interface),
            dfa=None if info.dfa is None else info.dfa.model_dump(mode="json"),
        )


def sample_id(box_id: str, repetition: int, repeats: int) -> str:
    """The box's id, with ``-r<rep>`` when boxes repeat."""
    return box_id if repeats == 1 else f"{box_id}-r{repetition}"
