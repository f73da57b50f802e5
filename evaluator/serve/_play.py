"""A person playing a served box (``oracle-play --env URL``): the same text as a local
``oracle-play``, over the OpenEnv-shaped routes."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

from evaluator.human import PlayIO
from evaluator.serve.client import ServedSuite
from oracle_bench.errors import RemoteProtocolError, UsageError

__all__ = ["ServedPlay", "list_served_boxes", "play_served"]


@dataclass(frozen=True)
class ServedPlay:
    """How a served episode ended: its score (None: failed or quit) and the server's id."""

    episode_id: str
    score: float | None
    quit: bool
    steps: int


def list_served_boxes(env: ServedSuite) -> tuple[str, list[dict[str, Any]]]:
    """The served suite's name and its boxes (id, family, level)."""
    described = env.describe()
    suite = described.get("suite")
    boxes = described.get("boxes")
    if not isinstance(suite, dict) or not isinstance(boxes, list):
        raise RemoteProtocolError("the server's description has no suite and boxes")
    rows = []
    for entry in boxes:
        info = entry.get("box") if isinstance(entry, dict) else None
        if not isinstance(info, dict):
            raise RemoteProtocolError("the server's description holds a malformed box")
        rows.append({k: str(info.get(k, "")) for k in ("id", "family", "level")})
    return str(suite.get("name", "")), rows


def _show(io: PlayIO, observation: str) -> str:
    """Show an observation but its last line, the prompt, which is returned."""
    *body, prompt = observation.split("\n")
    if body:
        io.print_fn("\n".join(body))
    return prompt


def play_served(
    env: ServedSuite, box: str, io: PlayIO, *, seed: int = 0, repetition: int = 0
) -> ServedPlay:
    """Play ``box`` of a served suite with a person through ``io``; end of input quits
    (the server records the episode as quit)."""
    if repetition < 0:
        raise UsageError(f"invalid repetition {repetition}: must be >= 0")
    reply = env.reset(box=box, seed=seed, repetition=repetition)
    episode = reply["episode_id"]
    steps = 0
    try:
        while not reply.get("done"):
            prompt = _show(io, reply["observation"]["text"])
            try:
                line = io.input_fn(prompt)
            except EOFError:
                env.close_episode(episode)
                return ServedPlay(episode, None, True, steps)
            reply = env.step(episode, line)
            steps += 1
    except BaseException:
        # Ctrl-C or a broken connection: leave no episode open on the server.
        with contextlib.suppress(Exception):  # the server may be the thing that broke
            env.close_episode(episode)
        raise
    if reply["observation"]["text"]:
        io.print_fn(reply["observation"]["text"])
    score = reply.get("reward")
    return ServedPlay(
        episode, float(score) if isinstance(score, int | float) else None, False, steps
    )
