"""A suite as a dataset: boxes as items with seeded random access, for training loops.

>>> from evaluator import BoxDataset
>>> data = BoxDataset("suites/demo-ERI-easy", spec="10@1", seed=0, repeats=4)
>>> item = data[5]                          # box 1, repetition 1: the same every time
>>> item.play("adaptive").accuracy          # doctest: +SKIP
>>> with item.episode() as ep:              # the same episode as text, turn by turn
...     text = ep.reset()
...     while not ep.done:
...         text = ep.step(policy(text)).observation   # doctest: +SKIP

Item ``i`` is box ``i // repeats`` of the suite, repetition ``i % repeats``: its held-out
items, the feedback and everything random in the episode come from (``seed``, box,
repetition), exactly as ``oracle-eval`` with the same seed draws them, so an item played
here scores what the same agent scores in a run. :meth:`BoxDataset.order` gives a seeded
shuffle for epochs.

:meth:`BoxItem.episode` is the text form a person plays in ``oracle-play`` (the same
protocol and records): observations are the text shown, actions the lines typed. Lines
starting with ``:`` are free commands (``:help``, ``:history``); :meth:`TextEpisode.close`
before the end records the episode as quit.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, overload

from oracle_bench.errors import EvaluationError, UsageError
from oracle_bench.rng import rng_for

if TYPE_CHECKING:
    from blackboxes.box import BoxInfo, SuiteInfo
    from blackboxes.store import Box
    from evaluator.executors import SuiteContext
    from evaluator.kinds import EpisodeKind
    from evaluator.llm_agents import LlmAgentSettings
    from evaluator.spec import TurnShot
    from sandbox import SandboxLimits

__all__ = ["TEXT_AGENT", "BoxDataset", "BoxItem", "EpisodeStep", "TextEpisode", "TextEpisodeError"]

TEXT_AGENT = "text:policy"
"""The agent name recorded for episodes played through :class:`TextEpisode`."""


class BoxDataset(Sequence["BoxItem"]):
    """The boxes of a suite x ``repeats``, as items with seeded random access.

    ``spec``/``feedback`` and ``options`` are the suite kind's settings, as in
    :func:`evaluator.evaluate` (``spec="20@2"`` for turn@shot suites,
    ``budget_factor=2`` for DFA suites). Loading checks every box's digest; ``boxes``
    (ids) keeps those boxes only, and only they need be in the folder.
    """

    def __init__(
        self,
        suite: Path | str,
        *,
        spec: TurnShot | str | None = None,
        feedback: str | None = None,
        seed: int = 0,
        repeats: int = 1,
        limits: SandboxLimits | None = None,
        boxes: Sequence[str] | None = None,
        **options: Any,
    ) -> None:
        from blackboxes.store import load_suite_boxes
        from evaluator.kinds import check_options, kind_for_suite, suite_subject
        from evaluator.spec import parse_spec

        if repeats < 1:
            raise UsageError(f"invalid repeats {repeats}: must be >= 1")
        if isinstance(spec, str):
            spec = parse_spec(spec)
        self.suite_dir = Path(suite)
        info, loaded = load_suite_boxes(self.suite_dir, boxes)
        kind = kind_for_suite(info)
        given = {"spec": spec, "feedback": feedback, **options}
        mine = check_options(kind, given, subject=suite_subject(kind, info.family, info.name))
        self.suite: SuiteInfo = info
        self.kind: EpisodeKind = kind
        self.settings: Any = kind.configure(info, mine, "eval")
        self.seed = seed
        self.repeats = repeats
        self.limits = limits
        self._boxes: list[Box] = list(loaded)

    def __len__(self) -> int:
        return len(self._boxes) * self.repeats

    @overload
    def __getitem__(self, index: int) -> BoxItem: ...

    @overload
    def __getitem__(self, index: slice) -> list[BoxItem]: ...

    def __getitem__(self, index: int | slice) -> BoxItem | list[BoxItem]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if isinstance(index, bool) or not isinstance(index, int):
            raise TypeError(f"dataset indices are integers, not {type(index).__name__}")
        n = len(self)
        if not -n <= index < n:
            raise IndexError(f"item {index} of a dataset of {n}")
        index %= n
        box = self._boxes[index // self.repeats]
        return BoxItem(
            index=index,
            box_id=box.info.id,
            repetition=index % self.repeats,
            info=box.info,
            _dataset=self,
            _box=box,
        )

    def order(self, epoch: int = 0) -> list[int]:
        """A shuffle of ``range(len(self))`` drawn from (``seed``, ``epoch``): the same
        for the same values, another one per epoch."""
        indices = list(range(len(self)))
        rng_for(self.seed, "dataset-order", self.suite.name, epoch).shuffle(indices)
        return indices

    def _context(self, agent: str, llm: LlmAgentSettings | None) -> SuiteContext:
        from evaluator.executors import SuiteContext
        from evaluator.llm_agents import is_llm_agent

        return SuiteContext(
            suite=self.suite,
            boxes=self._boxes,
            seed=self.seed,
            repeats=self.repeats,
            limits=self.limits,
            llm_names=frozenset({agent} if is_llm_agent(agent) else ()),
            llm=llm,
        )


@dataclass(frozen=True)
class BoxItem:
    """One (box, repetition) of a :class:`BoxDataset`: its public facts and ways to play it."""

    index: int
    box_id: str
    repetition: int
    info: BoxInfo
    """The box's public facts (box.json): what an agent may see, never the rule."""
    _dataset: BoxDataset = field(repr=False, compare=False)
    _box: Box = field(repr=False, compare=False)

    @property
    def intro(self) -> str:
        """The task intro an agent is given."""
        return self.info.task_intro

    def play(self, agent: str, *, llm: LlmAgentSettings | None = None) -> Any:
        """Play the episode with a registered agent (a baseline, or ``provider/model``
        with ``llm`` settings) and return its trajectory record (not written anywhere).
        A box that cannot start gives a failed record, as in a run."""
        from evaluator.failures import cause_of
        from evaluator.llm_agents import check_llm_agent, is_llm_agent
        from evaluator.runner import EpisodeJob
        from oracle_bench.errors import OracleBenchError
        from sandbox import SandboxLimits, SandboxWorker

        data = self._dataset
        if is_llm_agent(agent):
            from evaluator.llm_agents import LlmAgentSettings

            check_llm_agent(agent, llm if llm is not None else LlmAgentSettings())
        else:
            agent = data.kind.check_agent_name(agent)
        job = EpisodeJob(self.box_id, agent, self.repetition)
        run = data.kind.start(data._context(agent, llm), data.settings)
        limits = data.limits if data.limits is not None else SandboxLimits()
        try:
            worker = SandboxWorker(self._box.code, entry=self.info.entry, limits=limits)
        except OracleBenchError as exc:
            return run.cannot_start(self._box, job, f"{type(exc).__name__}: {exc}", cause_of(exc))
        with worker:
            return run.play(self._box, job, worker)

    def score(self, record: Any) -> float | None:
        """The record's score as a run reports it (accuracy, or 1/0 for DFA success)."""
        return self._dataset.kind.score(record)

    def episode(self) -> TextEpisode:
        """This item as a text episode (observations and actions are text)."""
        return TextEpisode(self)


@dataclass(frozen=True)
class EpisodeStep:
    """What :meth:`TextEpisode.step` returns."""

    observation: str
    """Everything shown since the last action, ending with the prompt for the next one."""
    done: bool
    score: float | None = None
    """Once done: the episode's score (None for a failed or quit episode)."""


class TextEpisodeError(EvaluationError):
    """A text episode used out of order, or whose protocol crashed."""


@dataclass(frozen=True)
class _Event:
    """From the episode's thread: a prompt (``ask``), the end, or a crash."""

    what: str
    text: str = ""
    record: Any = None
    error: BaseException | None = None


class TextEpisode:
    """One item played as text: :meth:`reset`, then :meth:`step` until :attr:`done`.

    The episode runs in a thread that blocks on each action; the box runs in its own
    sandbox worker, started by :meth:`reset` and stopped when the episode ends or
    :meth:`close` is called.
    """

    def __init__(self, item: BoxItem) -> None:
        self._item = item
        self._actions: queue.Queue[str | None] = queue.Queue()
        self._events: queue.Queue[_Event] = queue.Queue()
        self._shown: list[str] = []
        self._thread: threading.Thread | None = None
        self._worker: Any = None
        self.done = False
        self.record: Any = None
        """The trajectory record once done (None before)."""

    # -- the protocol side (the episode's thread) ---------------------------------------
    def _input(self, prompt: str) -> str:
        self._shown.append(prompt)
        text, self._shown = "\n".join(self._shown), []
        self._events.put(_Event("ask", text))
        action = self._actions.get()
        if action is None:
            raise EOFError  # close() before the end: the player quit
        return action

    def _print(self, text: str) -> None:
        self._shown.append(text)

    def _play(self) -> None:
        from evaluator.human import PlayIO
        from evaluator.kinds import HumanPlay

        data = self._item._dataset
        try:
            play = HumanPlay(
                box=self._item._box,
                io=PlayIO(self._input, self._print),
                agent_name=TEXT_AGENT,
                suite=data.suite.name,
                seed=data.seed,
                repetition=self._item.repetition,
                worker=self._worker,
                limits=self._limits,
            )
            played = data.kind.play_human(play, data.settings)
            record = played.record
            if played.quit:
                from evaluator.human import QUIT_ERROR

                record = record.model_copy(update={"error": QUIT_ERROR})
            self._events.put(_Event("end", "\n".join(self._shown), record))
        except BaseException as exc:  # handed to the caller's thread, raised there
            self._events.put(_Event("error", error=exc))

    # -- the caller's side --------------------------------------------------------------
    def reset(self) -> str:
        """Start the episode; the first observation (the intro and the first prompt)."""
        from sandbox import SandboxLimits, SandboxWorker

        if self._thread is not None:
            raise TextEpisodeError("reset() twice: take a new episode from the item")
        data = self._item._dataset
        self._limits = data.limits if data.limits is not None else SandboxLimits()
        self._worker = SandboxWorker(
            self._item._box.code, entry=self._item.info.entry, limits=self._limits
        )
        self._worker.__enter__()
        self._thread = threading.Thread(target=self._play, name="text-episode", daemon=True)
        self._thread.start()
        return self._next().observation

    def step(self, action: str) -> EpisodeStep:
        """Send one line (the agent's action); what the episode shows next."""
        if self._thread is None:
            raise TextEpisodeError("step() before reset()")
        if self.done:
            raise TextEpisodeError("step() after the episode ended")
        if not isinstance(action, str):
            raise TypeError(f"an action is a line of text, not {type(action).__name__}")
        # One line per action: a newline would smuggle a second action in.
        self._actions.put(action.replace("\r", " ").replace("\n", " "))
        return self._next()

    def _next(self) -> EpisodeStep:
        event = self._events.get()
        if event.what == "ask":
            return EpisodeStep(observation=event.text, done=False)
        self._finish()
        if event.error is not None:
            raise TextEpisodeError(f"the episode crashed: {event.error}") from event.error
        self.record = event.record
        return EpisodeStep(observation=event.text, done=True, score=self._item.score(event.record))

    def _finish(self) -> None:
        self.done = True
        if self._thread is not None:
            self._thread.join()
        if self._worker is not None:
            self._worker.__exit__(None, None, None)
            self._worker = None

    def close(self) -> None:
        """End the episode: before its end it is recorded as quit (``record`` is set)."""
        if self._thread is None:
            return
        if self.done:
            self._finish()
            return
        self._actions.put(None)
        try:
            while not self.done:
                self._next_after_close()
        finally:
            self._finish()

    def _next_after_close(self) -> None:
        event = self._events.get()
        if event.what == "ask":
            self._actions.put(None)
            return
        self._finish()
        self.record = event.record

    def __enter__(self) -> TextEpisode:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
