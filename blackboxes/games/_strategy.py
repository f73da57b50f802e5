"""Opponent strategies: registered kinds, each with an exact parameter space.

An opponent is a pure function of the public history (both sides' past actions) and,
for a mixed kind, of one uniform ``u`` in [0, 1) per round supplied by the caller; it
never draws random numbers itself. Each kind exposes it twice:

* as a finite-state machine (:meth:`Strategy.initial`, :meth:`Strategy.distribution`,
  :meth:`Strategy.update`; states are hashable), which the solvers memoise on, and
* as :meth:`Strategy.reference`, the distribution computed from the whole history
  afresh, which the brute-force check walks, so the two are independent.

:class:`Opponent` binds a kind to a game, its settings and parameters. Parameters are
flat tuples of JSON scalars (or tuples of them), the same for every evaluation game of
a box (a deck size or a game length never changes what a parameter means).
"""

from __future__ import annotations

import importlib
import math
from abc import ABC, abstractmethod
from collections.abc import Container, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Any, ClassVar, TypeVar, overload

from blackboxes.games._base import Game, GameError, GameState, get_game
from oracle_bench.errors import UnknownNameError

__all__ = [
    "ONE",
    "FactorisedKind",
    "History",
    "Opponent",
    "Params",
    "ProductSpace",
    "StratState",
    "Strategy",
    "get_strategy",
    "params_from_json",
    "params_to_json",
    "register_strategy",
    "strategy_names",
]

Params = tuple[Any, ...]
StratState = Hashable
History = tuple[tuple[str, str], ...]
"""Past rounds as (player action, opponent action), oldest first."""

ONE = Fraction(1)


class ProductSpace(Sequence[Params]):
    """Every tuple with one value from each domain, indexed lazily (mixed radix, the
    first domain most significant): 7**8 reactive maps need no list."""

    def __init__(self, domains: Sequence[Sequence[Any]]) -> None:
        self.domains = tuple(tuple(d) for d in domains)
        self._size = math.prod(len(d) for d in self.domains)

    def __len__(self) -> int:
        return self._size

    @overload
    def __getitem__(self, index: int) -> Params: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Params]: ...
    def __getitem__(self, index: int | slice) -> Params | Sequence[Params]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._size))]
        if index < 0:
            index += self._size
        if not 0 <= index < self._size:
            raise IndexError(index)
        out = []
        for domain in reversed(self.domains):
            index, digit = divmod(index, len(domain))
            out.append(domain[digit])
        return tuple(reversed(out))

    def __contains__(self, params: object) -> bool:
        return (
            isinstance(params, tuple)
            and len(params) == len(self.domains)
            and all(v in d for v, d in zip(params, self.domains, strict=True))
        )

    def __iter__(self) -> Iterator[Params]:
        return (self[i] for i in range(self._size))


@dataclass(frozen=True)
class Opponent:
    """A strategy kind bound to a game, its settings and parameters: the hidden opponent."""

    strategy: Strategy
    game: Game
    settings_items: tuple[tuple[str, int], ...]
    params: Params

    @property
    def settings(self) -> dict[str, int]:
        """The game settings, as a dict."""
        return dict(self.settings_items)

    @property
    def mixed(self) -> bool:
        """True when the opponent randomises (it then needs a ``u`` per round)."""
        return self.strategy.randomises(self.params)

    def initial(self) -> StratState:
        """The strategy state before the first round."""
        return self.strategy.initial(self)

    def distribution(self, strat_state: StratState, game_state: GameState) -> dict[str, Fraction]:
        """The opponent's next action as exact probabilities (positive ones only)."""
        return self.strategy.distribution(self, strat_state, game_state)

    def update(self, strat_state: StratState, player_action: str, opp_action: str) -> StratState:
        """The strategy state after a round."""
        return self.strategy.update(self, strat_state, player_action, opp_action)

    def act(self, strat_state: StratState, game_state: GameState, u: float) -> str:
        """The action ``u`` picks: inverse CDF over the legal actions in the game's order."""
        if not 0.0 <= u < 1.0:
            raise GameError(f"u must lie in [0, 1), not {u!r}")
        dist = self.distribution(strat_state, game_state)
        target, total = Fraction(u), Fraction(0)
        chosen = ""
        for action in self.game.opp_actions(game_state):
            p = dist.get(action)
            if p:
                total += p
                chosen = action
                if target < total:
                    break
        return chosen

    def reference(self, history: History, game_state: GameState) -> dict[str, Fraction]:
        """The next action's distribution computed from the whole history afresh."""
        return self.strategy.reference(self, history, game_state)

    def memo_key(self, strat_state: StratState, rounds_left: int) -> Hashable:
        """The solvers' memo key for ``strat_state`` (see :meth:`Strategy.memo_key`)."""
        return self.strategy.memo_key(self, strat_state, rounds_left)

    def replay(self, history: History) -> StratState:
        """The strategy state after ``history``."""
        state = self.initial()
        for player_action, opp_action in history:
            state = self.update(state, player_action, opp_action)
        return state


class Strategy(ABC):
    """A strategy kind: its parameter space per game and its behaviour."""

    name: ClassVar[str]
    title: ClassVar[str]
    mixed: ClassVar[bool] = False
    """True when some parameters randomise."""
    factorised: ClassVar[bool] = False
    """True for kinds whose version space is a product of independent components."""

    @abstractmethod
    def applies(self, game: Game) -> bool:
        """True when the kind is defined for ``game``."""

    @abstractmethod
    def space(self, game: Game, settings: Mapping[str, int]) -> Sequence[Params]:
        """Every parameter of the kind for ``game`` at ``settings``, in a fixed order."""

    @abstractmethod
    def describe(self, game: Game, params: Params) -> str:
        """A neutral description of the opponent (owner-side, never shown to agents)."""

    def template_context(self, game: Game, params: Params) -> dict[str, Any]:
        """Extra values the kind's box-code template needs beyond its parameters (a
        reply table, a shot's name); none by default."""
        return {}

    def memo_key(self, op: Opponent, strat_state: StratState, rounds_left: int) -> Hashable:
        """A key equal for strategy states that play alike for the ``rounds_left`` rounds
        still to come (the solvers' memo; the round number is in the key beside it)."""
        return strat_state

    def randomises(self, params: Params) -> bool:
        """True when the opponent with ``params`` draws from a distribution."""
        return self.mixed

    def reply_memory(self, game: Game) -> int:
        """How many of the player's last moves a reply of the kind reads as a context (a
        reactive map of the last k moves: k); 0 for the kinds that are no such map. What
        a systematic explorer that knows the kinds sweeps runs of."""
        return 0

    def log2_size(self, game: Game, settings: Mapping[str, int]) -> float:
        """log2|H|: log2 of the number of parameters."""
        return math.log2(len(self.space(game, settings)))

    def bind(self, game: Game, settings: Mapping[str, int], params: Params) -> Opponent:
        """The opponent with ``params`` in ``game``; refuses parameters outside the space."""
        if not self.applies(game):
            raise GameError(f"strategy {self.name} does not apply to game {game.name}")
        checked = game.settings(settings)
        params = params_from_json(params)
        if params not in _members(self.name, game.name, tuple(sorted(checked.items()))):
            raise GameError(f"{params!r} is not a {self.name} parameter for {game.name}")
        return Opponent(self, game, tuple(sorted(checked.items())), params)

    @abstractmethod
    def initial(self, op: Opponent) -> StratState:
        """The strategy state before the first round."""

    @abstractmethod
    def distribution(
        self, op: Opponent, strat_state: StratState, game_state: GameState
    ) -> dict[str, Fraction]:
        """The next action's distribution in ``strat_state`` and ``game_state``."""

    @abstractmethod
    def update(
        self, op: Opponent, strat_state: StratState, player_action: str, opp_action: str
    ) -> StratState:
        """The strategy state after a round."""

    @abstractmethod
    def reference(
        self, op: Opponent, history: History, game_state: GameState
    ) -> dict[str, Fraction]:
        """The next action's distribution from the whole history, without the machine."""


class FactorisedKind(Strategy):
    """A deterministic kind whose parameters are independent components (a
    :class:`ProductSpace`), each round's action decided by one of them: its version
    space is one set of allowed values per component, never a list of parameters."""

    factorised = True

    @abstractmethod
    def domains(self, game: Game, settings: Mapping[str, int]) -> tuple[tuple[Any, ...], ...]:
        """Each component's values (the space is their product)."""

    @abstractmethod
    def component(self, game: Game, settings: Mapping[str, int], history: History) -> int:
        """The component that decides the opponent's action after ``history``."""

    @abstractmethod
    def action_of(self, game: Game, game_state: GameState, value: Any) -> str:
        """The action a component's ``value`` plays in ``game_state``."""

    @abstractmethod
    def component_of(self, op: Opponent, strat_state: StratState) -> int:
        """:meth:`component` read off the machine's state: the component that decides
        the next action in ``strat_state`` (what a solver over the states needs)."""

    def space(self, game: Game, settings: Mapping[str, int]) -> Sequence[Params]:
        return ProductSpace(self.domains(game, settings))


@cache
def _members(
    kind: str, game: str, settings_items: tuple[tuple[str, int], ...]
) -> Container[Params]:
    # Binding checks membership; the space is built once per (kind, game, settings).
    space = get_strategy(kind).space(get_game(game), dict(settings_items))
    return space if isinstance(space, ProductSpace) else frozenset(space)


def params_to_json(params: Params) -> list[Any]:
    """Parameters as JSON lists (tuples become lists, recursively)."""
    return [params_to_json(v) if isinstance(v, tuple) else v for v in params]


def params_from_json(value: Sequence[Any]) -> Params:
    """Parameters from JSON lists (lists become tuples, recursively)."""
    return tuple(params_from_json(v) if isinstance(v, list | tuple) else v for v in value)


_S = TypeVar("_S", bound="type[Strategy]")
_REGISTRY: dict[str, Strategy] = {}
_BUILTIN = ("_kinds_reply", "_kinds_mixed", "_kinds_pd", "_kinds_lsd", "_kinds_cards")


def register_strategy(cls: _S) -> _S:
    """Class decorator: register one instance of a strategy kind under ``cls.name``."""
    if cls.name in _REGISTRY:
        raise ValueError(f"strategy {cls.name!r} registered twice")
    _REGISTRY[cls.name] = cls()
    return cls


def _load_builtin() -> None:
    for module in _BUILTIN:
        importlib.import_module(f"blackboxes.games.{module}")


def get_strategy(name: str) -> Strategy:
    """The registered strategy kind called ``name`` (case-insensitive)."""
    _load_builtin()
    strategy = _REGISTRY.get(name.lower())
    if strategy is None:
        raise UnknownNameError("strategy", name, strategy_names())
    return strategy


def strategy_names(game: Game | None = None) -> list[str]:
    """The registered kinds' names, sorted; with ``game``, those that apply to it."""
    _load_builtin()
    return sorted(n for n, s in _REGISTRY.items() if game is None or s.applies(game))


def one(action: str) -> dict[str, Fraction]:
    """The distribution that plays ``action`` for sure."""
    return {action: ONE}


def uniform(actions: Sequence[str]) -> dict[str, Fraction]:
    """The uniform distribution over ``actions``."""
    p = Fraction(1, len(actions))
    return {a: p for a in actions}
