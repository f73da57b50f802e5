"""A box episode as text sessions for other tools, without gymnasium: shared by the
gymnasium env (:mod:`evaluator.integrations.gym`) and the OpenEnv-shaped session service
(``evaluator.serve._openenv``).

A :class:`TextSession` wraps :class:`evaluator.dataset.TextEpisode` (the episode a person
plays in ``oracle-play``, with the same records) and makes every action safe to take from
a model or a remote client:

- an action that is not text, or longer than ``max_action_length``, is an invalid move:
  the session sends the episode :data:`INVALID_STAND_IN` instead, a text over the limits
  of :mod:`oracle_bench.bounded` that every kind's protocol records as an invalid
  turn/probe/reply/call, exactly as it records a model's over-long or non-text reply;
- an action naming a file the way ``oracle-play`` lets a person do it (``@PATH``, ``eq
  @PATH``) is refused: nothing is sent or recorded, the prompt is shown again. A person
  at a terminal reads their own files; a model or a remote client must not read ours;
- a crash of the episode's machinery ends the session with ``error`` set, never a
  traceback.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from oracle_bench.bounded import MAX_TEXT_CHARS
from oracle_bench.errors import UsageError

if TYPE_CHECKING:
    from evaluator.dataset import BoxDataset, BoxItem, TextEpisode

__all__ = [
    "DEFAULT_MAX_ACTION_LENGTH",
    "DEFAULT_REPEATS",
    "INVALID_STAND_IN",
    "SessionTurn",
    "TextSession",
    "choose_item",
    "file_reference",
]

log = logging.getLogger(__name__)

DEFAULT_REPEATS = 1 << 20
"""Repetitions a seeded reset draws from: practically a fresh episode for every seed."""

DEFAULT_MAX_ACTION_LENGTH = 1 << 16
"""Characters of one action: room for a DFA hypothesis of a few hundred states on one line;
every other kind's lines are far shorter."""

# "{" first: the DFA player forwards such a line as a raw tool call (other lines it answers
# locally, unrecorded); one character over the bound: every protocol rejects it before
# parsing and records the move as invalid.
INVALID_STAND_IN = "{" + "x" * MAX_TEXT_CHARS
"""What the episode is sent for an action that is not text or is too long."""

# "@PATH" or "WORD @PATH": the file forms of oracle-play's human players (a program as
# "@file.py", a DFA as "eq @dfa.json"). No box's protocol starts a word with "@".
_FILE_REFERENCE = re.compile(r"^\s*(?:\S+\s+)?@")


def file_reference(action: str) -> bool:
    """Whether ``action`` names a file in the form ``oracle-play`` reads (``@PATH``)."""
    return _FILE_REFERENCE.match(action) is not None


@dataclass(frozen=True)
class SessionTurn:
    """What :meth:`TextSession.reset` and :meth:`TextSession.step` return."""

    text: str
    """Everything shown since the last action, ending with the prompt for the next one."""
    done: bool
    reward: float
    """0 until the end; then the episode's score (0 when it has none: failed or quit)."""
    metadata: dict[str, Any]
    """Public facts: box, repetition, kind, step_count, prompt, refused, invalid_action,
    and once done score, status and error. Never the record (it holds the answers)."""


class TextSession:
    """One (box, repetition) played as text, hostile actions handled (module docstring).

    Not thread-safe: one caller at a time (the session service holds a lock per session).
    """

    def __init__(self, item: BoxItem, *, max_action_length: int = DEFAULT_MAX_ACTION_LENGTH):
        if max_action_length < 1:
            raise UsageError(f"invalid max_action_length {max_action_length}: must be >= 1")
        self.item = item
        self.max_action_length = max_action_length
        self.kind: str = item._dataset.kind.name
        self.step_count = 0
        self.done = False
        self.score: float | None = None
        self.error: str | None = None
        self._episode: TextEpisode | None = None
        self._prompt = ""
        self._prompt_line = ""

    @property
    def record(self) -> Any:
        """The trajectory record once the episode ended (None before, or after a crash).
        It holds the expected answers: never send it to an agent."""
        return None if self._episode is None else self._episode.record

    @property
    def status(self) -> str | None:
        """The record's status once done (``completed``/``failed``), else None."""
        record = self.record
        return None if record is None else str(record.status)

    def reset(self) -> SessionTurn:
        """Start the episode (its sandbox worker): the intro and the first prompt."""
        from evaluator.dataset import TextEpisodeError

        if self._episode is not None:
            raise TextEpisodeError("reset() twice: a session plays one episode")
        self._episode = self.item.episode()
        try:
            text = self._episode.reset()
        except BaseException:
            self._episode.close()
            raise
        return self._turn(text)

    def step(self, action: object) -> SessionTurn:
        """Send one action (a line of text); what the episode shows next."""
        from evaluator.dataset import TextEpisodeError

        if self._episode is None:
            raise TextEpisodeError("step() before reset()")
        if self.done:
            raise TextEpisodeError("step() after the episode ended")
        self.step_count += 1
        if isinstance(action, str) and file_reference(action):
            note = "Refused: files (@PATH) cannot be read here; nothing was sent or recorded."
            return self._turn(f"{note}\n{self._prompt_line}", refused="names a file (@PATH)")
        invalid = not isinstance(action, str) or len(action) > self.max_action_length
        line = INVALID_STAND_IN if invalid else str(action)
        try:
            step = self._episode.step(line)
        except TextEpisodeError as exc:
            # The detail may quote the episode's internals: logged, not shown.
            log.warning("episode of box %s crashed: %s", self.item.box_id, exc)
            self.done = True
            self.error = "the episode crashed"
            return self._turn("The episode crashed and was not recorded.", invalid=invalid)
        if step.done:
            self.done = True
            self.score = step.score
        return self._turn(step.observation, invalid=invalid)

    def close(self) -> None:
        """Stop the episode and its sandbox worker (before its end: recorded as quit).
        Idempotent."""
        if self._episode is not None:
            self._episode.close()
        self.done = True

    def metadata(self) -> dict[str, Any]:
        """The public facts of the session now (see :attr:`SessionTurn.metadata`)."""
        facts: dict[str, Any] = {
            "box": self.item.box_id,
            "repetition": self.item.repetition,
            "kind": self.kind,
            "step_count": self.step_count,
            "prompt": "" if self.done else self._prompt,
        }
        if self.done:
            facts.update(score=self.score, status=self.status, error=self.error)
        return facts

    def _turn(self, text: str, *, refused: str | None = None, invalid: bool = False) -> SessionTurn:
        if not self.done:
            self._prompt_line = text.rsplit("\n", 1)[-1]
            self._prompt = self._prompt_line.strip()
        facts = self.metadata()
        facts.update(refused=refused, invalid_action=invalid)
        reward = float(self.score) if self.done and self.score is not None else 0.0
        return SessionTurn(text=text, done=self.done, reward=reward, metadata=facts)


def choose_item(
    dataset: BoxDataset,
    box: object = None,
    repetition: object = None,
    *,
    draw: Callable[[int], int],
) -> BoxItem:
    """The item for ``box`` (an id or an index) and ``repetition``; either left as None is
    drawn with ``draw(n)`` (an integer in ``range(n)``), the box first. Bad values raise
    :class:`UsageError`."""
    boxes = len(dataset) // dataset.repeats
    if box is None:
        index = draw(boxes)
    elif isinstance(box, str):
        ids = [dataset[i * dataset.repeats].box_id for i in range(boxes)]
        if box not in ids:
            raise UsageError(f"no box {box[:80]!r} in suite {dataset.suite.name}")
        index = ids.index(box)
    elif isinstance(box, int) and not isinstance(box, bool):
        if not 0 <= box < boxes:
            raise UsageError(f"box index {box} out of range: the suite has {boxes} boxes")
        index = box
    else:
        raise UsageError(f"a box is an id or an index, not {type(box).__name__}")
    if repetition is None:
        rep = draw(dataset.repeats)
    elif isinstance(repetition, int) and not isinstance(repetition, bool):
        if not 0 <= repetition < dataset.repeats:
            raise UsageError(f"repetition {repetition} out of range 0..{dataset.repeats - 1}")
        rep = repetition
    else:
        raise UsageError(f"a repetition is an integer, not {type(repetition).__name__}")
    return dataset[index * dataset.repeats + rep]
