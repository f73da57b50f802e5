"""Shared cases: small settings per game and a fixed sample of each kind's parameters."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

from blackboxes.games import (
    Game,
    Params,
    Strategy,
    game_names,
    get_game,
    get_strategy,
    strategy_names,
)

# Small enough for the brute-force tree walk (its cost is (|A| * |B|) ** rounds).
SMALL: dict[str, list[dict[str, int]]] = {
    "rps": [{"rounds": 1}, {"rounds": 4}],
    "anti_rps": [{"rounds": 4}],
    "rps7": [{"rounds": 3}],
    "pennies": [{"rounds": 5}],
    "pd": [{"rounds": 5}],
    "lsd": [{"rounds": 5, "max_bullets": 2}],
    "lsd_scout": [{"rounds": 4, "max_bullets": 2}],
    "cards": [{"cards": 4}, {"cards": 5}],
}
PER_KIND = 5
"""Parameters checked per (game, kind, settings): first, last and a seeded sample."""


def sample_params(space: Sequence[Params], k: int, seed: str) -> list[Params]:
    """The first and last parameters and ``k - 2`` more drawn with a fixed seed."""
    n = len(space)
    rng = random.Random(seed)
    idx = sorted({0, n - 1, *(rng.randrange(n) for _ in range(max(0, k - 2)))})
    return [space[i] for i in idx]


def pairs() -> Iterator[tuple[Game, Strategy]]:
    """Every (game, kind) pair that applies."""
    for name in game_names():
        game = get_game(name)
        for kind in strategy_names(game):
            yield game, get_strategy(kind)


def cases(per_kind: int = PER_KIND) -> list[tuple[str, str, dict[str, int], Params]]:
    """(game, kind, settings, params) for every pair at every small setting."""
    out = []
    for game, strategy in pairs():
        for settings in SMALL[game.name]:
            space = strategy.space(game, settings)
            for params in sample_params(space, per_kind, f"{game.name}/{strategy.name}"):
                out.append((game.name, strategy.name, settings, params))
    return out


def case_id(case: tuple[str, str, dict[str, int], Params]) -> str:
    game, kind, settings, params = case
    return f"{game}-{kind}-{'-'.join(map(str, settings.values()))}-{params}"
