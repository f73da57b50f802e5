"""GSI's domain: repeated games with known rules and hidden opponent strategies.

Pure and trusted: no I/O, no randomness of its own (mixed opponents draw from uniforms
the caller supplies). Games (``get_game``): rps, rps7, anti_rps, pennies, pd, lsd,
lsd_scout, cards. Strategy kinds (``get_strategy``), each with an exact parameter space
per game. Values: the exact optimum against a known opponent (DP, checked by a
brute-force tree walk), the maximin security value, a policy's expected score.
Designed opponents (``MACHINE``): finite-state machines an LLM designer wrote.
Version spaces: the parameters consistent with observed games, their predictive and
the best response to them; a mixture of kinds (``mixture_space``) for agents who do not
know the kind.
"""

from __future__ import annotations

from blackboxes.games._base import (
    MAX_ACTION_CHARS,
    Game,
    GameError,
    GameState,
    Outcome,
    Settings,
    game_names,
    get_game,
    register_game,
)
from blackboxes.games._cards import Hands
from blackboxes.games._catalogue import LEVEL_PAIRS, pairs
from blackboxes.games._lsd import Bullets
from blackboxes.games._machine import (
    MACHINE,
    MAX_STATES,
    MAX_WEIGHT,
    machine_params,
    machine_table,
)
from blackboxes.games._mixture import Candidate, MixtureSpace, mixture_space
from blackboxes.games._play import GameRecord, Player, Round, play_game
from blackboxes.games._space import (
    QMDP_LIMIT,
    ExplicitSpace,
    FactorisedSpace,
    Horizon,
    StrategySpace,
    version_space,
)
from blackboxes.games._strategy import (
    FactorisedKind,
    History,
    Opponent,
    Params,
    ProductSpace,
    Strategy,
    StratState,
    get_strategy,
    params_from_json,
    params_to_json,
    register_strategy,
    strategy_names,
)
from blackboxes.games._values import (
    BestResponse,
    PlayerPolicy,
    best_response_policy,
    best_response_value,
    brute_force_value,
    expected_score,
    matrix_value,
    security_value,
    uniform_policy,
)

__all__ = [  # noqa: RUF022 (plain sorted order, as tests/test_layout.py checks)
    "BestResponse",
    "Bullets",
    "Candidate",
    "ExplicitSpace",
    "FactorisedKind",
    "FactorisedSpace",
    "Game",
    "GameError",
    "GameRecord",
    "GameState",
    "Hands",
    "History",
    "Horizon",
    "LEVEL_PAIRS",
    "MACHINE",
    "MAX_ACTION_CHARS",
    "MAX_STATES",
    "MAX_WEIGHT",
    "MixtureSpace",
    "Opponent",
    "Outcome",
    "Params",
    "Player",
    "PlayerPolicy",
    "ProductSpace",
    "QMDP_LIMIT",
    "Round",
    "Settings",
    "StratState",
    "Strategy",
    "StrategySpace",
    "best_response_policy",
    "best_response_value",
    "brute_force_value",
    "expected_score",
    "game_names",
    "get_game",
    "get_strategy",
    "machine_params",
    "machine_table",
    "matrix_value",
    "mixture_space",
    "pairs",
    "params_from_json",
    "params_to_json",
    "play_game",
    "register_game",
    "register_strategy",
    "security_value",
    "strategy_names",
    "uniform_policy",
    "version_space",
]
