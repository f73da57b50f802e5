"""GSI rule kinds: one per (game, strategy kind) pair a level offers, ``"rps7/beat_last"``."""

from __future__ import annotations

from blackboxes.box import Level
from blackboxes.games import Game, Strategy, get_game, get_strategy, pairs
from oracle_bench.errors import UnknownNameError

__all__ = ["kind_name", "level_kinds", "split_kind"]


def kind_name(game: str, strategy: str) -> str:
    """The rule kind of ``strategy`` played in ``game``: ``"rps7/beat_last"``."""
    return f"{game}/{strategy}"


def level_kinds(level: Level) -> tuple[str, ...]:
    """The rule kinds of ``level``, in the catalogue's order."""
    return tuple(kind_name(g, s) for g, s in pairs(level))


def split_kind(kind: str, level: Level) -> tuple[Game, Strategy]:
    """The game and strategy of a rule kind of ``level``; UnknownNameError otherwise."""
    known = level_kinds(level)
    if not isinstance(kind, str) or kind not in known:
        raise UnknownNameError(f"GSI {level} rule kind", str(kind)[:80], list(known))
    game, _, strategy = kind.partition("/")
    return get_game(game), get_strategy(strategy)
