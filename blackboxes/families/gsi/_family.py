"""The GSI family: a known repeated game against an opponent with a hidden fixed strategy.

A rule is a (game, strategy kind) pair of the level's catalogue (``"rps7/beat_last"``),
the strategy's parameters and the K evaluation settings of the box (game lengths or deck
sizes, as ORACLE's 4 settings). The box's code is the opponent:
``blackbox(settings, history, u)`` returns its next action in the current game after
``history`` (the rounds so far as [player action, opponent action] pairs), a mixed
strategy drawing with ``u`` by inverse CDF over the legal actions in the game's order.

Episodes are whole games (the ``game`` episode kind): the agent is told the rules and the
settings, never the strategy. What the kind needs of a served box's family is here:
:attr:`game`, :attr:`evaluation_settings`, :meth:`true_opponent` (owner-side, for the
optimum only) and :meth:`agent_space` (the agents' prior: every kind of the box's level
for its game, mixed).
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from blackboxes.box import HiddenInfo, JSONValue, Level
from blackboxes.families import LEVELS, register_family
from blackboxes.families._base import BoxCall, Family, HypothesisSpace, Rule
from blackboxes.families.gsi._name import kind_name, level_kinds, split_kind
from blackboxes.games import (
    MACHINE,
    MAX_ACTION_CHARS,
    MAX_STATES,
    MAX_WEIGHT,
    Game,
    GameError,
    GameState,
    History,
    MixtureSpace,
    Params,
    Strategy,
    best_response_value,
    expected_score,
    game_names,
    get_game,
    machine_params,
    mixture_space,
    pairs,
    params_from_json,
    params_to_json,
    security_value,
    uniform_policy,
)
from blackboxes.information import VersionSpace
from oracle_bench.errors import FamilyError, InvalidQueryError, UnknownNameError

__all__ = ["ALMOST_ONE", "MAX_QUERY_CHARS", "GsiFamily"]

ALMOST_ONE = math.nextafter(1.0, 0.0)
"""The largest float below 1: the top edge of a round's uniform."""
MAX_QUERY_CHARS = 20_000
"""Longest query text :meth:`GsiFamily.parse_query` reads (a 50-round history fits)."""
_SAMPLE_TRIES = 1000

_INTRO = """\
You play a repeated game against a computer opponent. You know the rules (below); the \
opponent follows a fixed hidden strategy, the same in every game you play against it. In \
each round its action depends only on the rounds played so far in the current game (every \
game starts afresh) and, if its strategy randomises, on chance. Find out how it plays and \
score as much as you can against it.

The game is played in {count} settings, which differ only in {varying}.

{listing}
"""

_VARYING = {"rounds": "the number of rounds", "cards": "the number of cards"}


@dataclass(frozen=True)
class _Served:
    """A box's public interface: its game, level and evaluation settings."""

    game: str
    level: Level
    settings: tuple[tuple[tuple[str, int], ...], ...]


def _items(settings: Mapping[str, int]) -> tuple[tuple[str, int], ...]:
    return tuple(sorted(settings.items()))


def _shape(game: Game) -> str:
    """Which game-state helpers a box's code needs."""
    if game.stateless:
        return "stateless"
    if game.name in ("lsd", "lsd_scout"):
        return "lsd"
    if game.name == "cards":
        return "cards"
    raise FamilyError(f"GSI has no box code for game {game.name}")  # pragma: no cover


_WRAPPING = " \t\r\n`'\".!"


def _squash(text: str) -> str:
    return " ".join(text.lower().split())


def _action_key(text: str) -> str:
    # As Game.parse_action: case, spacing and wrapping quotes never matter.
    return "".join(text.strip(_WRAPPING).lower().split())


def _plays_one_action(
    game: Game, strategy: Strategy, params: Params, settings: Mapping[str, int]
) -> bool:
    """True when the opponent plays the same action whatever happens (every reachable
    state of the game and the strategy): a constant box, which the generator's tester
    rightly calls degenerate."""
    op = strategy.bind(game, settings, params)
    seen: set[str] = set()
    frontier = {(game.initial_state(settings), op.initial())}
    for _ in range(game.rounds(settings)):
        nxt = set()
        for state, strat_state in frontier:
            dist = op.distribution(strat_state, state)
            seen.update(dist)
            if len(seen) > 1:
                return False
            for a in game.actions(state):
                for b in dist:
                    out = game.resolve(state, a, b)
                    nxt.add((out.state, op.update(strat_state, a, b)))
        frontier = nxt
    return True


Policy = Callable[[int, tuple[str, ...]], str]


def _first(t: int, legal: tuple[str, ...]) -> str:
    return legal[0]


def _last(t: int, legal: tuple[str, ...]) -> str:
    return legal[-1]


def _turns(t: int, legal: tuple[str, ...]) -> str:
    return legal[t % len(legal)]


def _big_shot(t: int, legal: tuple[str, ...]) -> str:
    # The largest shot it can pay for, else the first action (a load): runs a side dry.
    shots = [a for a in legal if a.startswith("shoot")]
    return shots[-1] if shots else legal[0]


# (player, opponent) policies of the edge-case histories: loads up to the cap (wasted
# loads), every defence, the actions in turn, shots of every bullet held.
_EDGE_POLICIES: tuple[tuple[Policy, Policy], ...] = (
    (_first, _first),
    (_last, _last),
    (_turns, _turns),
    (_first, _last),
    (_last, _first),
    (_big_shot, _big_shot),
    (_big_shot, _first),
    (_first, _big_shot),
)


@register_family
class GsiFamily(Family):
    """GSI: infer a hidden opponent strategy in a known repeated game by playing it.

    Rule kinds are the level's (game, strategy kind) pairs (``blackboxes.games.pairs``);
    parameters are drawn uniformly from the kind's exact space, leaving out opponents
    that play one action whatever happens or against whom nobody scores. log2|H| is
    log2 of the kind's space (the agents' prior, :meth:`agent_space`, mixes every kind
    of the level for the game, so it is larger); one round reveals one of the game's
    opponent actions (|Y|).
    """

    name: ClassVar[str] = "GSI"
    title: ClassVar[str] = "Game strategy inference"
    hidden_rule: ClassVar[bool] = True
    test_items: ClassVar[int] = 4
    episode: ClassVar[str] = "game"
    balanced_kinds: ClassVar[bool] = True
    entry_signature: ClassVar[str] = "settings, history, u"
    coder_notes: ClassVar[str] = (
        "blackbox(settings, history, u) returns the opponent's next action (a string) in "
        "the current game: settings is the game's settings dict, history the list of "
        "[player action, opponent action] pairs of the rounds so far, u a float in [0, 1). "
        "A randomising opponent uses u by inverse CDF: walk its legal actions in the "
        "game's fixed order, adding up their probabilities exactly (fractions.Fraction(u) "
        "against Fraction probabilities), and play the first action whose running total "
        "exceeds u."
    )

    def __init__(self, served: _Served | None = None) -> None:
        self._served = served

    # -- the served box --------------------------------------------------------
    def _box(self) -> _Served:
        if self._served is None:
            raise FamilyError(
                "this GSI family serves no box: use for_interface(box.json interface)"
            )
        return self._served

    @property
    def game(self) -> Game:
        """The box's game (its rules are public)."""
        return get_game(self._box().game)

    @property
    def level(self) -> Level:
        return self._box().level

    @property
    def evaluation_settings(self) -> list[dict[str, int]]:
        """The box's K evaluation settings (public), in order."""
        return [dict(s) for s in self._box().settings]

    def _setting_dicts(self) -> list[dict[str, int]]:
        return [self.game.settings(dict(s)) for s in self._box().settings]

    def true_opponent(self, hidden: HiddenInfo | Any) -> tuple[Strategy, Params]:
        """The hidden opponent of hidden.json (owner-side: for the exact optimum only,
        never for an agent), checked against this box's game, level and settings."""
        params = getattr(hidden, "params", None)
        if not isinstance(params, Mapping):
            raise FamilyError("GSI hidden.json has no parameters")
        game, strategy, values = self._opponent(params, self.level)
        if game.name != self.game.name:
            raise FamilyError(f"hidden.json plays {game.name}, the box {self.game.name}")
        for settings in self._setting_dicts():
            strategy.bind(game, settings, values)
        return strategy, values

    def agent_space(self, settings: Mapping[str, int]) -> MixtureSpace:
        """The agents' prior over opponents, knowing the game but not the kind: every
        strategy kind the box's level offers for its game (uniform over kinds, then
        uniform over each kind's parameters at ``settings``)."""
        game = self.game
        kinds = [s for g, s in pairs(self.level) if g == game.name]
        return mixture_space(game, kinds, game.settings(settings))

    # -- LLM designs: an opponent as a machine -----------------------------------
    def design_schema(self, level: Level) -> dict[str, Any] | None:
        """A designed GSI opponent is a finite-state machine (``blackboxes.games.MACHINE``)
        in one of the games a machine can play: its exact optimum stays computable."""
        self.kinds(level)
        weights = {"type": "integer", "minimum": 1, "maximum": MAX_WEIGHT}
        return {
            "game": {"type": "string", "enum": _machine_games(level)},
            "states": {
                "type": "array",
                "minItems": 1,
                "maxItems": MAX_STATES,
                "items": {
                    "type": "object",
                    "properties": {
                        "play": {"type": "object", "additionalProperties": weights},
                        "next": {
                            "type": "object",
                            "additionalProperties": {"type": "integer", "minimum": 0},
                        },
                    },
                    "required": ["play", "next"],
                    "additionalProperties": False,
                },
            },
        }

    def design_brief(self, level: Level) -> str:
        games = "".join(
            f"\n  - {name} (actions in order: {', '.join(game.alphabet(game.settings()))}): "
            + game.rules_text(game.settings())
            for name in _machine_games(level)
            for game in [get_game(name)]
        )
        return (
            _DESIGN_BRIEF.format(games=games, states=MAX_STATES, weight=MAX_WEIGHT)
            + (_DESIGN_LEVEL[level])
        )

    def check_design(self, level: Level, description: str, design: Mapping[str, Any]) -> None:
        """A machine of a game the level offers, that varies its play in the level's longest
        game and can be beaten in its shortest (as drawn opponents must)."""
        self.kinds(level)
        if not isinstance(description, str) or not description.strip():
            raise FamilyError("the design needs a description of the opponent")
        if len(description) > _MAX_DESIGN_CHARS:
            raise FamilyError(f"the description is at most {_MAX_DESIGN_CHARS} characters")
        if not isinstance(design, Mapping) or set(design) != {"game", "states"}:
            raise FamilyError("a GSI design has exactly the fields game and states")
        name = design["game"]
        if name not in _machine_games(level):
            raise FamilyError(
                f"game {str(name)[:40]!r}: a machine plays one of "
                + ", ".join(_machine_games(level))
            )
        game = get_game(str(name))
        params = machine_params(game, design["states"])
        low, high = game.level_ranges[level][game.varying]
        if _plays_one_action(game, MACHINE, params, game.settings({game.varying: high})):
            raise FamilyError("the machine plays one action whatever happens: make it vary")
        if best_response_value(game, game.settings({game.varying: low}), MACHINE, params) <= 0:
            raise FamilyError("no player can score against the machine: make it beatable")

    def rule_from_design(
        self, level: Level, description: str, design: Mapping[str, Any], rng: random.Random
    ) -> Rule:
        """The designed machine with the box's K evaluation settings drawn by ``rng``."""
        self.check_design(level, description, design)
        game = get_game(str(design["game"]))
        settings = game.evaluation_settings(rng, level, self.test_items)
        return self._rule(
            level,
            {
                "game": game.name,
                "kind": MACHINE.name,
                "params": params_to_json(machine_params(game, design["states"])),
                "settings": [dict(s) for s in settings],
                "design": description.strip(),
            },
        )

    # -- interface -------------------------------------------------------------
    def interface_of(self, rule: Rule) -> dict[str, JSONValue]:
        if not isinstance(rule.params.get("game"), str) or "settings" not in rule.params:
            # An LLM-designed rule: the game episode scores against a trusted opponent.
            raise FamilyError("a GSI box needs a trusted opponent (a game and its strategy)")
        return {
            "game": str(rule.params["game"]),
            "level": rule.level,
            "settings": [dict(s) for s in rule.params["settings"]],
        }

    def for_interface(self, interface: Mapping[str, JSONValue]) -> GsiFamily:
        """The family serving a box whose box.json interface is ``interface`` (its game,
        level and K settings, each within the level's ranges); FamilyError otherwise."""
        if not isinstance(interface, Mapping):
            raise FamilyError("a GSI box interface is an object")
        if not interface:
            return GsiFamily()
        unknown = sorted(str(k)[:40] for k in interface if k not in ("game", "level", "settings"))
        if unknown:
            raise FamilyError(f"unknown GSI interface setting {', '.join(unknown)}")
        name, level = interface.get("game"), interface.get("level")
        if not isinstance(name, str) or name not in game_names():
            raise FamilyError(f"GSI box interface: unknown game {str(name)[:40]!r}")
        if level not in LEVELS:
            raise FamilyError(f"GSI box interface: unknown level {str(level)[:40]!r}")
        game = get_game(name)
        served = _Served(name, level, _check_settings(game, level, interface.get("settings")))
        return GsiFamily(served)

    def prior_key(self, level: Level) -> tuple[str | int, ...]:
        if self._served is None:
            return (self.name, level)
        flat = [f"{k}={v}" for s in self._served.settings for k, v in s]
        return (self.name, level, self._served.game, *flat)

    # -- rules -----------------------------------------------------------------
    def kinds(self, level: Level) -> tuple[str, ...]:
        if level not in LEVELS:
            raise UnknownNameError("level", str(level), list(LEVELS))
        return level_kinds(level)

    def sample_rule(self, rng: random.Random, level: Level, kind: str | None = None) -> Rule:
        """Uniform kind unless given; the K settings (``Game.evaluation_settings``); then
        uniform parameters of the kind, redrawn while the opponent plays one action
        whatever happens (a constant box) or no player can score against it (a box whose
        every score is the optimum, 0)."""
        name = rng.choice(self.kinds(level)) if kind is None else kind
        game, strategy = split_kind(name, level)
        settings = game.evaluation_settings(rng, level, self.test_items)
        space = strategy.space(game, settings[0])
        shortest, longest = settings[0], max(settings, key=game.rounds)
        for _ in range(_SAMPLE_TRIES):
            params = space[rng.randrange(len(space))]
            # Points never go negative, so what a player can win in the shortest game
            # it can win in the longer ones (and any Comparing Cards opponent is beatable).
            if not _plays_one_action(game, strategy, params, longest) and (
                best_response_value(game, shortest, strategy, params) > 0
            ):
                break
        else:  # pragma: no cover - every kind has many non-constant members
            raise FamilyError(f"no {name} opponent that varies and can be beaten found")
        return self._rule(
            level,
            {
                "game": game.name,
                "kind": strategy.name,
                "params": params_to_json(params),
                "settings": [dict(s) for s in settings],
            },
        )

    def _opponent(
        self, params: Mapping[str, JSONValue], level: Level
    ) -> tuple[Game, Strategy, Params]:
        game_name, kind = params.get("game"), params.get("kind")
        if not isinstance(game_name, str) or not isinstance(kind, str):
            raise FamilyError("GSI parameters name a game and a strategy kind")
        strategy: Strategy
        if kind == MACHINE.name:
            # A designed opponent: any level, any game a machine can play.
            game, strategy = _machine_game(game_name), MACHINE
        else:
            game, strategy = split_kind(kind_name(game_name, kind), level)
        raw = params.get("params")
        if not isinstance(raw, list):
            raise FamilyError("GSI strategy parameters are a list")
        return game, strategy, params_from_json(raw)

    def _rule(self, level: Level, params: Mapping[str, JSONValue]) -> Rule:
        unknown = sorted(set(params) - {"game", "kind", "params", "settings", "values", "design"})
        if unknown:
            raise FamilyError(f"unknown GSI parameter {', '.join(unknown)}")
        game, strategy, values = self._opponent(params, level)
        design = params.get("design")
        if design is not None and (strategy is not MACHINE or not isinstance(design, str)):
            raise FamilyError("only a designed machine carries its designer's description")
        settings = _check_settings(game, level, params.get("settings"))
        dicts = [dict(s) for s in settings]
        for s in dicts:
            strategy.bind(game, s, values)
        opponents = {_items(s): strategy.bind(game, s, values) for s in dicts}

        def fn(x: JSONValue) -> JSONValue:
            checked, history, u = _read_query(game, x, None)
            op = opponents.get(_items(checked)) or strategy.bind(game, checked, values)
            state = game.initial_state(checked)
            for a, b in history:
                state, _ = game.step(state, a, b)
            return op.act(op.replay(history), state, u)

        checked_params: dict[str, JSONValue] = {
            "game": game.name,
            "kind": strategy.name,
            "params": params_to_json(opponents[_items(dicts[0])].params),
            "settings": dicts,
        }
        description = _describe(game, strategy, values)
        if isinstance(design, str):
            checked_params["design"] = design
            description = f"{design.strip()}\n\nExactly: {description}"
        return Rule(
            family=self.name,
            kind=kind_name(game.name, strategy.name),
            level=level,
            params=checked_params,
            description=description,
            fn=fn,
        )

    def rule_from_params(self, kind: str, level: Level, params: Mapping[str, JSONValue]) -> Rule:
        rule = self._rule(level, params)
        if rule.kind != kind:
            raise FamilyError(f"the parameters are of a {rule.kind} opponent, not {kind}")
        return rule

    def hypothesis_space(self, kind: str, level: Level) -> HypothesisSpace:
        """log2 of the kind's parameter space; |Y| = the game's opponent actions. A
        designed machine has no space: log2|H| unknown, so T_info is None."""
        name, _, strategy_name = str(kind).partition("/")
        if strategy_name == MACHINE.name:
            game = _machine_game(name)
            return HypothesisSpace(
                log2_h=None, log2_y=math.log2(len(game.alphabet(game.settings()))), exact=False
            )
        game, strategy = split_kind(kind, level)
        settings = [game.settings()]
        if self._served is not None and self._served.game == game.name:
            settings = self._setting_dicts()
        outputs = max(len(game.alphabet(s)) for s in settings)
        return HypothesisSpace(
            log2_h=strategy.log2_size(game, settings[0]), log2_y=math.log2(outputs)
        )

    def version_space(self, level: Level, kind: str | None = None) -> VersionSpace:
        raise FamilyError(
            "GSI boxes are played as whole games; their agents' prior is agent_space(settings)"
        )

    def hidden_info(self, rule: Rule, test_seed: int) -> HiddenInfo:
        """hidden.json, with each setting's exact optimum (a best response's expected
        score), security value (maximin) and uniform random play's expected score: the
        references an episode is scored against (the evaluator recomputes them)."""
        hidden = super().hidden_info(rule, test_seed)
        game, strategy, values = self._opponent(rule.params, rule.level)
        references = [
            {
                "settings": dict(s),
                "optimum": str(best_response_value(game, s, strategy, values)),
                "security": security_value(game, s),
                "uniform": str(expected_score(game, s, strategy, values, uniform_policy(game))),
            }
            for s in rule.params["settings"]
        ]
        return hidden.model_copy(update={"params": {**hidden.params, "values": references}})

    # -- code ------------------------------------------------------------------
    def code_template(self, rule: Rule) -> tuple[str, dict[str, Any]]:
        game, strategy, values = self._opponent(rule.params, rule.level)
        order = game.alphabet(game.settings())
        context: dict[str, Any] = {
            "title": game.title,
            "shape": _shape(game),
            "scout": game.name == "lsd_scout",
            "order": list(order),
            "params": params_to_json(values),
        }
        if game.stateless:
            context["counters"] = {a: list(game.counters(a)) for a in order}
            context["opp_points"] = {
                a: {b: game.resolve((), a, b).opp_points for b in order} for a in order
            }
        context.update(strategy.template_context(game, values))
        return f"code/gsi/{strategy.name}.py.j2", context

    def box_call(self, x: JSONValue) -> BoxCall:
        if not isinstance(x, list | tuple) or len(x) != 3:
            raise InvalidQueryError("a GSI query is [settings, history, u]")
        return BoxCall(tuple(x))

    # -- protocol --------------------------------------------------------------
    def task_intro(self, level: Level) -> str:
        """The game's full rules at each of the box's settings, and that the opponent
        follows a fixed hidden strategy (never which). The bare family, serving no box,
        says only that."""
        self.kinds(level)
        if self._served is None:
            lead = _INTRO.split("\n\n")[0].replace("(below)", "(each box states its game's)")
            return lead + "\n"
        game = self.game
        listing = "\n\n".join(
            f"Setting {i + 1} ({_settings_text(s)}): {game.rules_text(s)}"
            for i, s in enumerate(self._setting_dicts())
        )
        return _INTRO.format(
            count=len(self._box().settings),
            varying=_VARYING.get(game.varying, game.varying),
            listing=listing,
        )

    @property
    def input_schema(self) -> str:
        return (
            "a JSON array [settings, history, u]: one of the box's game settings, the list of "
            "[your action, opponent action] pairs of the current game so far, and a number "
            "u with 0 <= u < 1"
        )

    @property
    def output_schema(self) -> str:
        if self._served is None:
            return "the opponent's next action"
        return f"the opponent's next action, e.g. {self.game.alphabet(self._setting_dicts()[0])[0]}"

    def parse_query(self, text: str) -> JSONValue:
        if not isinstance(text, str):
            raise InvalidQueryError(f"a query must be text, got {type(text).__name__}")
        if len(text) > MAX_QUERY_CHARS:
            raise InvalidQueryError(f"a query is at most {MAX_QUERY_CHARS} characters")
        if self._served is None:
            raise InvalidQueryError("this GSI family serves no box: its game is not known")
        try:
            raw = json.loads(text.strip().strip("`"))
        except (json.JSONDecodeError, RecursionError):
            raise InvalidQueryError(
                "a query is JSON: [settings, history, u], e.g. " + self._example()
            ) from None
        settings, history, u = _read_query(self.game, raw, self._setting_dicts())
        return [settings, [list(p) for p in history], u]

    def _example(self) -> str:
        return self.format_query([self._setting_dicts()[0], [], 0.5])

    def format_query(self, x: JSONValue) -> str:
        return json.dumps(x, separators=(", ", ": "))

    def render_output(self, y: JSONValue) -> str:
        if not isinstance(y, str):
            raise FamilyError(f"a GSI box answers an action, got {type(y).__name__}")
        return y

    def normalise_answer(self, text: str) -> str:
        return _squash(text)

    # -- inputs ----------------------------------------------------------------
    def _query(
        self, settings: Mapping[str, int], history: Sequence[Sequence[str]], u: float
    ) -> list[JSONValue]:
        return [dict(settings), [list(p) for p in history], u]

    def _random_history(
        self, rng: random.Random, settings: Mapping[str, int], length: int
    ) -> list[list[str]]:
        game = self.game
        state = game.initial_state(settings)
        out = []
        for _ in range(length):
            a, b = rng.choice(game.actions(state)), rng.choice(game.opp_actions(state))
            out.append([a, b])
            state, _ = game.step(state, a, b)
        return out

    def _policy_history(
        self, settings: Mapping[str, int], length: int, player: Policy, opponent: Policy
    ) -> list[list[str]]:
        game = self.game
        state = game.initial_state(settings)
        out = []
        for t in range(length):
            a, b = player(t, game.actions(state)), opponent(t, game.opp_actions(state))
            out.append([a, b])
            state, _ = game.step(state, a, b)
        return out

    def random_query(self, rng: random.Random) -> JSONValue:
        """Uniform settings of the box, a history of uniformly random legal play of a
        uniform length shorter than the game, a uniform u."""
        settings = rng.choice(self._setting_dicts())
        length = rng.randrange(self.game.rounds(settings))
        return self._query(settings, self._random_history(rng, settings, length), rng.random())

    def exploration_plan(self, level: Level, turns: int) -> list[JSONValue]:
        """The settings in turn, each with histories of both sides playing their legal
        actions in turn, growing by a round every K queries; u = 1/2."""
        dicts = self._setting_dicts()
        out: list[JSONValue] = []
        for i in range(turns):
            settings = dicts[i % len(dicts)]
            length = (i // len(dicts)) % self.game.rounds(settings)
            out.append(
                self._query(settings, self._policy_history(settings, length, _turns, _turns), 0.5)
            )
        return out

    def query_pool(
        self,
        rng: random.Random,
        level: Level,
        n: int,
        asked: Sequence[JSONValue] = (),
    ) -> list[JSONValue]:
        return [self.random_query(rng) for _ in range(n)]

    def test_inputs(
        self, rng: random.Random, k: int, exclude: Collection[JSONValue]
    ) -> list[JSONValue]:
        seen = {self.format_query(x) for x in exclude}
        out: list[JSONValue] = []
        for _ in range(1000 * max(1, k)):
            if len(out) >= k:
                break
            x = self.random_query(rng)
            key = self.format_query(x)
            if key not in seen:
                seen.add(key)
                out.append(x)
        return out

    def differential_inputs(self, rng: random.Random, n: int) -> list[JSONValue]:
        """Edge cases first, for every setting: the empty history with u at 0, 1/2 and
        just below 1; histories of the last round and of half the game from fixed play
        (loads into the cap, every defence, every bullet shot, actions in turn); then
        histories of random legal play of random length, with random u."""
        edges: list[JSONValue] = []
        for settings in self._setting_dicts():
            for u in (0.0, 0.5, ALMOST_ONE):
                edges.append(self._query(settings, [], u))
            last = self.game.rounds(settings) - 1
            for player, opponent in _EDGE_POLICIES:
                full = self._policy_history(settings, last, player, opponent)
                edges.append(self._query(settings, full, 0.0))
                edges.append(self._query(settings, full, ALMOST_ONE))
                edges.append(self._query(settings, full[: last // 2], 0.5))
        out = edges[:n]
        while len(out) < n:
            out.append(self.random_query(rng))
        return out


_MAX_DESIGN_CHARS = 4000

_DESIGN_BRIEF = """\
The rule is the opponent's hidden strategy in a repeated game whose rules the players \
know. Besides the description, give the strategy exactly as a finite-state machine:
- game: the game it plays, one of these (each box fixes its own numbers of rounds):{games}
- states: a list of 1 to {states} states; the machine starts in state 0. Each state is \
{{"play": {{action: weight, ...}}, "next": {{player action: state, ...}}}}: in that state \
the opponent plays an action drawn with probability weight / (sum of the state's \
weights), weights being integers 1..{weight} (one action: it plays it for sure); after \
the round it moves to the state that next names for the action the player played \
(every action of the game needs an entry).
Example, tit-for-tat in the prisoner's dilemma: game "pd", states \
[{{"play": {{"cooperate": 1}}, "next": {{"cooperate": 0, "defect": 1}}}}, \
{{"play": {{"defect": 1}}, "next": {{"cooperate": 0, "defect": 1}}}}].
The machine must vary its play and be beatable. Every game starts afresh in state 0.
"""

_DESIGN_LEVEL = {
    "easy": "Level easy: an opponent that one game of attentive play reveals (a few "
    "states, pure actions, reacting to the player's last move).\n",
    "hard": "Level hard: an opponent one blind game does not reveal (states reached only "
    "by particular play, longer memory, or mixed states).\n",
}


def _machine_games(level: Level) -> list[str]:
    """The games a designed machine may play at ``level``: those whose actions are always
    legal and that the level offers (so the agents' prior has kinds for it)."""
    offered = {game for game, _ in pairs(level)}
    return [name for name in game_names() if name in offered and get_game(name).stateless]


def _machine_game(name: str) -> Game:
    """The game called ``name`` if a machine can play it."""
    if name not in game_names() or not get_game(name).stateless:
        raise FamilyError(f"a designed machine plays no game {str(name)[:40]!r}")
    return get_game(name)


def _settings_text(settings: Mapping[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(settings.items()))


def _check_settings(
    game: Game, level: Level, raw: object
) -> tuple[tuple[tuple[str, int], ...], ...]:
    """The K evaluation settings of a box: complete, each within the level's ranges."""
    count = GsiFamily.test_items
    if not isinstance(raw, list | tuple) or len(raw) != count:
        raise FamilyError(f"a GSI box has {count} evaluation settings")
    out = []
    ranges = game.level_ranges[level]
    for s in raw:
        if not isinstance(s, Mapping) or not all(isinstance(k, str) for k in s):
            raise FamilyError("a GSI setting is an object of integers")
        checked = game.settings(s)
        for key, (low, high) in ranges.items():
            if not low <= checked[key] <= high:
                raise FamilyError(
                    f"{game.name} {level} setting {key}={checked[key]} is outside {low}..{high}"
                )
        out.append(_items(checked))
    return tuple(out)


def _read_query(
    game: Game, x: object, allowed: Sequence[Mapping[str, int]] | None
) -> tuple[dict[str, int], History, float]:
    """A query's settings, history and u, checked: the settings are the game's (one of
    ``allowed`` when given), the history follows the rules and leaves a round to play,
    0 <= u < 1. Actions are matched ignoring case and spacing."""
    if isinstance(x, Mapping):
        if set(x) != {"settings", "history", "u"}:
            raise InvalidQueryError("a query object has exactly settings, history and u")
        raw_settings, raw_history, u = x["settings"], x["history"], x["u"]
    elif isinstance(x, list | tuple) and len(x) == 3:
        raw_settings, raw_history, u = x
    else:
        raise InvalidQueryError("a query is [settings, history, u]")
    if not isinstance(raw_settings, Mapping) or not all(isinstance(k, str) for k in raw_settings):
        raise InvalidQueryError('the query\'s settings are an object such as {"rounds": 10}')
    try:
        settings = game.settings(raw_settings)
    except GameError as exc:
        raise InvalidQueryError(str(exc)) from None
    if allowed is not None and settings not in allowed:
        listing = "; ".join(_settings_text(s) for s in allowed)
        raise InvalidQueryError(f"the settings are not one of this box's ({listing})")
    if isinstance(u, bool) or not isinstance(u, int | float) or not 0 <= u < 1:
        raise InvalidQueryError(f"u must be a number with 0 <= u < 1, not {str(u)[:40]}")
    if not isinstance(raw_history, list | tuple):
        raise InvalidQueryError("the history is a list of [your action, opponent action] pairs")
    rounds = game.rounds(settings)
    if len(raw_history) >= rounds:
        raise InvalidQueryError(
            f"a history has at most {rounds - 1} rounds (a game of {rounds} rounds)"
        )
    state: GameState = game.initial_state(settings)
    history = []
    for t, pair in enumerate(raw_history, 1):
        if not isinstance(pair, list | tuple) or len(pair) != 2:
            raise InvalidQueryError(f"round {t} of the history is not an [action, action] pair")
        mine, theirs = pair
        if not isinstance(mine, str) or not isinstance(theirs, str):
            raise InvalidQueryError(f"round {t} of the history: actions are text")
        try:
            a = game.parse_action(state, mine)
        except GameError as exc:
            raise InvalidQueryError(f"round {t} of the history: {exc}") from None
        wanted = _action_key(theirs[:MAX_ACTION_CHARS])
        b = next((o for o in game.opp_actions(state) if _action_key(o) == wanted), None)
        if b is None:
            raise InvalidQueryError(
                f"round {t} of the history: {theirs[:40]!r} is not a legal opponent action"
            )
        history.append((a, b))
        state, _ = game.step(state, a, b)
    return settings, tuple(history), float(u)


def _describe(game: Game, strategy: Strategy, params: Params) -> str:
    text = f"{game.title}: the opponent {strategy.describe(game, params)}."
    if strategy.randomises(params):
        text += (
            " Each round it draws with u: the first of its legal actions, in the order "
            f"{', '.join(game.alphabet(game.settings()))}, at which the running total of "
            "its probabilities exceeds u."
        )
    return text
