"""The gymnasium env of a box: text in, text out (see the package docstring)."""

from __future__ import annotations

import string
from pathlib import Path
from typing import TYPE_CHECKING, Any, SupportsFloat

import gymnasium
from gymnasium import spaces

from evaluator.integrations.gym._episodes import (
    DEFAULT_MAX_ACTION_LENGTH,
    DEFAULT_REPEATS,
    SessionTurn,
    TextSession,
    choose_item,
)
from oracle_bench.errors import UsageError

if TYPE_CHECKING:
    from evaluator.spec import TurnShot
    from sandbox import SandboxLimits

__all__ = [
    "DEFAULT_MAX_OBSERVATION_LENGTH",
    "ENV_ID",
    "EXTRA_CHARACTERS",
    "REPLACEMENT",
    "BoxEnv",
    "make_env",
    "register_env",
]

ENV_ID = "oracle-bench/Box-v0"
"""The id :func:`register_env` registers by default."""

DEFAULT_MAX_OBSERVATION_LENGTH = 1 << 18
"""Characters of one observation: an intro is 1-3k, a step's text a few hundred plus the
echo of the action (at most the action length)."""

EXTRA_CHARACTERS = "\u00b7\u2013\u2026\u2264\u2265\u03b5\u03bb"
"""The non-ASCII characters the kinds' texts and parsers use (middle dot, en dash,
ellipsis, <=, >=, epsilon, lambda)."""

REPLACEMENT = "\ufffd"
"""What stands in an observation for a character outside the charset."""

_CUT = "\n[... {} characters left out ...]\n"

_CHARSET = frozenset("\t\n" + string.printable.strip() + " " + EXTRA_CHARACTERS + REPLACEMENT)


class BoxEnv(gymnasium.Env[str, str]):
    """The boxes of a suite as a gymnasium env with text observations and actions.

    ``suite``, ``spec``, ``feedback``, ``limits`` and ``options`` are those of
    :class:`evaluator.dataset.BoxDataset`; ``seed`` is the run seed (``oracle-eval
    --seed``): repetition r of a box is the episode ``oracle-eval`` plays as repetition r.
    ``box`` (an id or an index) fixes the box; without it each reset draws one.

    ``reset(seed=s, options={"box": id_or_index, "repetition": r})``: what options leave
    out is drawn from the env's generator, seeded by ``s`` (the same seed, the same
    episode). ``step(text)``: reward 0 until the episode ends, then its score (accuracy,
    solved share, game score, DFA success 1/0; 0 for a failed or quit episode);
    ``terminated`` at the end; ``truncated`` only when the episode's machinery crashed
    (``info["error"]``). Not text or longer than ``max_action_length``: an invalid move,
    recorded as such; ``@PATH`` file forms are refused (``info["refused"]``), nothing
    recorded. ``info``: box, repetition, kind, step_count, prompt, refused,
    invalid_action; at the end score, status, error and ``record`` (the trajectory, with
    the expected answers: for the trainer, not the agent). ``close()`` stops the sandbox
    worker (an unfinished episode is recorded as quit).
    """

    # render_fps: gymnasium warns without one; a text env has no frame rate to speak of.
    metadata = {"render_modes": ["ansi"], "render_fps": 1}  # noqa: RUF012 (as gymnasium declares it)

    def __init__(
        self,
        suite: Path | str,
        *,
        box: str | int | None = None,
        spec: TurnShot | str | None = None,
        feedback: str | None = None,
        seed: int = 0,
        repeats: int = DEFAULT_REPEATS,
        limits: SandboxLimits | None = None,
        max_action_length: int = DEFAULT_MAX_ACTION_LENGTH,
        max_observation_length: int = DEFAULT_MAX_OBSERVATION_LENGTH,
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        from evaluator.dataset import BoxDataset

        if render_mode not in (None, "ansi"):
            raise UsageError(f"invalid render_mode {render_mode!r}: None or 'ansi'")
        if max_observation_length < 200:
            raise UsageError(f"invalid max_observation_length {max_observation_length}: >= 200")
        self.dataset = BoxDataset(
            suite,
            spec=spec,
            feedback=feedback,
            seed=seed,
            repeats=repeats,
            limits=limits,
            **options,
        )
        choose_item(self.dataset, box, 0, draw=lambda n: 0)  # a bad box fails here, not later
        self.box = box
        self.max_action_length = max_action_length
        self.max_observation_length = max_observation_length
        self.render_mode = render_mode
        self.action_space = spaces.Text(max_action_length, min_length=1, charset=_CHARSET)
        self.observation_space = spaces.Text(max_observation_length, min_length=0, charset=_CHARSET)
        self._session: TextSession | None = None
        self._text = ""

    @property
    def session(self) -> TextSession | None:
        """The current episode's session (None before the first reset and after close)."""
        return self._session

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        options = dict(options or {})
        unknown = sorted(set(options) - {"box", "repetition"})
        if unknown:
            raise UsageError(f"unknown reset option(s) {', '.join(unknown)}: box, repetition")
        rng = self.np_random

        def draw(n: int) -> int:
            return int(rng.integers(n))

        item = choose_item(
            self.dataset,
            options.get("box", self.box),
            options.get("repetition"),
            draw=draw,
        )
        self._close_session()
        self._session = TextSession(item, max_action_length=self.max_action_length)
        turn = self._session.reset()
        return self._observe(turn), self._info(turn)

    def step(self, action: str) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        if self._session is None:
            raise UsageError("step() before reset() (or after close())")
        turn = self._session.step(action)
        crashed = turn.metadata.get("error") is not None
        terminated = turn.done and not crashed
        return self._observe(turn), turn.reward, terminated, crashed, self._info(turn)

    def render(self) -> str | None:
        """The last observation (``render_mode="ansi"``), else None."""
        return self._text if self.render_mode == "ansi" else None

    def close(self) -> None:
        self._close_session()
        super().close()

    def _close_session(self) -> None:
        if self._session is not None:
            self._session.close()
            self._session = None

    def _observe(self, turn: SessionTurn) -> str:
        text = "".join(c if c in _CHARSET else REPLACEMENT for c in turn.text)
        limit = self.max_observation_length
        if len(text) > limit:
            # Keep the head (the start of the echo) and the tail (the answer and prompt).
            keep = limit - len(_CUT.format(len(text)))
            cut = _CUT.format(len(text) - keep)
            text = text[: keep // 2] + cut + text[len(text) - (keep - keep // 2) :]
        self._text = text
        return text

    def _info(self, turn: SessionTurn) -> dict[str, Any]:
        info = dict(turn.metadata)
        if turn.done and self._session is not None:
            info["record"] = self._session.record
        return info


def make_env(
    suite: Path | str,
    *,
    box: str | int | None = None,
    spec: TurnShot | str | None = None,
    seed: int = 0,
    **kwargs: Any,
) -> BoxEnv:
    """A :class:`BoxEnv` of ``suite`` (one ``box`` if given) without gymnasium's wrappers;
    ``seed`` is the run seed, ``kwargs`` go to :class:`BoxEnv`."""
    return BoxEnv(suite, box=box, spec=spec, seed=seed, **kwargs)


def register_env(env_id: str = ENV_ID, **kwargs: Any) -> str:
    """Register :class:`BoxEnv` as ``env_id`` with default ``kwargs`` (``suite=...,
    spec=...``) for ``gymnasium.make(env_id, **more)``; returns ``env_id``. Registering
    an id again replaces it."""
    gymnasium.registry.pop(env_id, None)
    gymnasium.register(id=env_id, entry_point=f"{__name__}:BoxEnv", kwargs=kwargs)
    return env_id
