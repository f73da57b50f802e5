"""The GSI family: rule kinds, box code in the real sandbox against the reference, hostile
interfaces, exact records, queries and the configured family the game episode reads."""

from __future__ import annotations

import json
import math
import random
from fractions import Fraction
from typing import Any, cast

import pytest

from blackboxes.box import HiddenInfo, Level
from blackboxes.families import Rule, family_for_box, get_family
from blackboxes.families.gsi import ALMOST_ONE, GsiFamily, level_kinds, split_kind
from blackboxes.games import (
    best_response_value,
    expected_score,
    get_game,
    get_strategy,
    pairs,
    play_game,
    security_value,
    uniform_policy,
)
from oracle_bench.errors import FamilyError, InvalidQueryError, UnknownNameError
from sandbox import SandboxWorker, call_box
from templates import render

GSI = cast(GsiFamily, get_family("GSI"))
LEVELS: tuple[Level, ...] = ("easy", "hard")
KINDS = [(level, kind) for level in LEVELS for kind in level_kinds(level)]


def _rule(level: Level, kind: str, seed: int = 0) -> Rule:
    return GSI.sample_rule(random.Random(f"{seed}/{level}/{kind}"), level, kind)


def _served(rule: Rule) -> GsiFamily:
    return cast(GsiFamily, GSI.for_rule(rule))


def _consistent(rule: Rule, rng: random.Random, n: int) -> list[Any]:
    """Triples whose histories the box's own opponent played against a random player."""
    served = _served(rule)
    game, (strategy, params) = served.game, _truth(rule)
    out = []
    for _ in range(n):
        settings = rng.choice(served.evaluation_settings)
        rounds = game.rounds(settings)
        record = play_game(
            game,
            settings,
            strategy,
            params,
            lambda t, s, h: rng.choice(game.actions(s)),
            [rng.random() for _ in range(rounds)],
        )
        cut = rng.randrange(rounds)
        out.append([settings, [list(p) for p in record.history[:cut]], rng.random()])
    return out


def _truth(rule: Rule) -> tuple[Any, Any]:
    hidden = HiddenInfo(rule_kind=rule.kind, params=dict(rule.params), description="", test_seed=0)
    return _served(rule).true_opponent(hidden)


def test_kinds_are_the_catalogues_pairs() -> None:
    for level in LEVELS:
        assert GSI.kinds(level) == tuple(f"{g}/{s}" for g, s in pairs(level))
    assert len(GSI.kinds("easy")) >= 8 and len(GSI.kinds("hard")) >= 8
    assert GSI.episode == "game" and GSI.balanced_kinds and GSI.test_items == 4
    with pytest.raises(UnknownNameError):
        split_kind("rps/median", "easy")
    with pytest.raises(UnknownNameError):
        GSI.kinds(cast(Level, "medium"))


@pytest.mark.parametrize(("level", "kind"), KINDS, ids=[f"{lv}-{k}" for lv, k in KINDS])
def test_every_kinds_box_agrees_with_the_reference_in_the_sandbox(level: Level, kind: str) -> None:
    rule = _rule(level, kind)
    served = _served(rule)
    template, ctx = GSI.code_template(rule)
    assert template == f"code/gsi/{kind.split('/')[1]}.py.j2"
    rng = random.Random(kind)
    inputs = served.differential_inputs(rng, 140) + _consistent(rule, rng, 60)
    game = served.game
    outputs = set()
    with SandboxWorker(render(template, **ctx)) as worker:
        for i, x in enumerate(inputs):
            result = call_box(worker, served.box_call(x))
            assert result.ok, result.error
            assert result.value == rule(x), x
            outputs.add(result.value)
            if i >= 140:  # a history the opponent itself played: its next move is legal
                settings, history, _ = x
                state = game.initial_state(settings)
                for a, b in history:
                    state, _ = game.step(state, a, b)
                assert result.value in game.opp_actions(state)
    assert len(outputs) > 1  # never a constant box


def test_the_reference_is_the_librarys_opponent_drawing_by_inverse_cdf() -> None:
    rule = _rule("easy", "pennies/mixed_weights")
    heads = Fraction(rule.params["params"][0], 4)
    s = _served(rule).evaluation_settings[0]
    for u in (0.0, float(heads) - 1e-12, float(heads), 0.5, ALMOST_ONE):
        expected = "heads" if Fraction(u) < heads else "tails"
        assert rule([s, [], u]) == expected


def test_sampling_is_seeded_and_never_constant_nor_unbeatable() -> None:
    a = [GSI.sample_rule(random.Random(7), "hard").params for _ in range(3)]
    b = [GSI.sample_rule(random.Random(7), "hard").params for _ in range(3)]
    assert a == b
    # A constant pd/cycle would be (cooperate,) or (defect,): never drawn.
    for seed in range(40):
        rule = GSI.sample_rule(random.Random(seed), "easy", "pd/cycle")
        assert len(set(rule.params["params"])) > 1
        settings = rule.params["settings"]
        game = get_game("pd")
        assert len(settings) == 4 and settings == sorted(settings, key=game.rounds)
    # Some bullet maps defend whenever the player could shoot: nobody scores against them.
    lsd, bullet_map = get_game("lsd"), get_strategy("bullet_map")
    for seed in range(40):
        rule = GSI.sample_rule(random.Random(seed), "easy", "lsd/bullet_map")
        params = tuple(rule.params["params"])
        shortest = rule.params["settings"][0]
        assert best_response_value(lsd, shortest, bullet_map, params) > 0


def test_rule_from_params_round_trips_and_refuses_tampering() -> None:
    rule = _rule("hard", "lsd/patient")
    again = GSI.rule_from_params(rule.kind, "hard", dict(rule.params))
    assert again == rule
    bad: list[tuple[str, dict[str, Any]]] = [
        ("lsd/bullet_map", dict(rule.params)),
        (rule.kind, {**rule.params, "params": [9, 1]}),
        (rule.kind, {**rule.params, "kind": "cycle"}),
        (rule.kind, {**rule.params, "extra": 1}),
        (rule.kind, {**rule.params, "settings": rule.params["settings"][:2]}),
        (rule.kind, {**rule.params, "params": "nope"}),
    ]
    for kind, params in bad:
        with pytest.raises((FamilyError, UnknownNameError)):
            GSI.rule_from_params(kind, "hard", params)
    with pytest.raises(UnknownNameError):
        GSI.rule_from_params(rule.kind, "easy", dict(rule.params))  # not an easy kind


HOSTILE: list[Any] = [
    {"game": "rps"},
    {"game": "chess", "level": "easy", "settings": []},
    {"game": "rps", "level": "medium", "settings": [{"rounds": 8}] * 4},
    {"game": "rps", "level": "easy", "settings": [{"rounds": 8}] * 3},
    {"game": "rps", "level": "easy", "settings": [{"rounds": 8}] * 5000},
    {"game": "rps", "level": "easy", "settings": [{"rounds": 50}] * 4},
    {"game": "rps", "level": "easy", "settings": [{"rounds": True}] * 4},
    {"game": "rps", "level": "easy", "settings": [{"rounds": "8"}] * 4},
    {"game": "rps", "level": "easy", "settings": [{"cards": 8}] * 4},
    {"game": "rps", "level": "easy", "settings": ["rounds 8"] * 4},
    {"game": "rps", "level": "easy", "settings": "x"},
    {"game": "cards", "level": "hard", "settings": [{"cards": 16}] * 4},
    {"game": ["rps"], "level": "easy", "settings": [{"rounds": 8}] * 4},
    {"game": "rps", "level": "easy", "settings": [{"rounds": 8}] * 4, "kind": "cycle"},
]


@pytest.mark.parametrize("interface", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_interfaces_are_refused(interface: Any) -> None:
    with pytest.raises(FamilyError):
        GSI.for_interface(interface)


def test_the_served_family_is_what_the_game_episode_reads() -> None:
    rule = _rule("easy", "rps7/beat_last")
    info, _ = GSI.box_records("GSI-easy-0000", rule)
    family = cast(GsiFamily, family_for_box(info))
    assert family.game is get_game("rps7")
    assert family.evaluation_settings == rule.params["settings"]
    assert len(family.evaluation_settings) == family.test_items == 4
    hidden = GSI.hidden_info(rule, 5)
    strategy, params = family.true_opponent(hidden)
    assert strategy is get_strategy("beat_last") and list(params) == rule.params["params"]
    space = family.agent_space(family.evaluation_settings[0])
    assert space.kinds == tuple(s for g, s in pairs("easy") if g == "rps7")
    assert space.contains(strategy.name, params)
    with pytest.raises(FamilyError):
        family.true_opponent(HiddenInfo(rule_kind="x", params={}, description="", test_seed=0))
    other = GSI.hidden_info(_rule("easy", "rps/beat_last"), 5)
    with pytest.raises(FamilyError, match="plays rps"):
        family.true_opponent(other)
    with pytest.raises(FamilyError, match="serves no box"):
        _ = GSI.game


@pytest.mark.parametrize(
    ("level", "kind"),
    [
        ("easy", "cards/copy_card"),
        ("easy", "lsd_scout/patient"),
        ("hard", "pd/reactive_memory"),
        ("easy", "pd/grim"),
    ],
)
def test_records_are_exact_and_keep_the_strategy_owner_side(level: Level, kind: str) -> None:
    rule = _rule(level, kind)
    info, facts = GSI.box_records(f"GSI-{level}-0001", rule)
    game, strategy = split_kind(kind, level)
    settings = rule.params["settings"]
    space = strategy.space(game, settings[0])
    assert facts.rule_kind == kind and facts.log2_h == math.log2(len(space))
    assert facts.log2_y == math.log2(max(len(game.alphabet(s)) for s in settings))
    assert facts.t_info == math.ceil(round(facts.log2_h / facts.log2_y, 9))
    public = info.model_dump_json()
    params = rule.params["params"]
    for secret in (kind, strategy.name, strategy.title, json.dumps(params)):
        assert secret not in public
    assert strategy.name.replace("_", " ") not in info.task_intro.lower()
    assert info.interface == {"game": game.name, "level": level, "settings": settings}
    for s in settings:
        assert game.rules_text(s) in info.task_intro
    assert "fixed hidden strategy" in info.task_intro
    hidden = GSI.hidden_info(rule, 11)
    assert hidden.test_seed == 11 and hidden.rule_kind == kind
    truth = _served(rule).true_opponent(hidden)[1]
    for v, s in zip(hidden.params["values"], settings, strict=True):
        exact = best_response_value(game, s, strategy, truth)
        assert v["settings"] == s and Fraction(v["optimum"]) == exact
        assert v["security"] == security_value(game, s)
        uniform = expected_score(game, s, strategy, truth, uniform_policy(game))
        assert Fraction(v["uniform"]) == uniform <= exact
    # hidden.json's extra references never change the rule it rebuilds
    assert GSI.rule_from_params(kind, level, hidden.params) == rule


def test_queries_parse_leniently_and_strictly_about_meaning() -> None:
    rule = _rule("easy", "lsd_scout/patient")
    served = _served(rule)
    s = served.evaluation_settings[0]
    x = [s, [["LOAD", " load"], ["shoot 1", "`defend 1`"]], 0.25]
    assert served.parse_query(json.dumps(x)) == [
        s,
        [["load", "load"], ["shoot 1", "defend 1"]],
        0.25,
    ]
    for q in served.differential_inputs(random.Random(0), 60):
        assert served.parse_query(served.format_query(q)) == q
    obj = {"settings": s, "history": [], "u": 0}
    assert served.parse_query(json.dumps(obj)) == [s, [], 0.0]
    other = {"rounds": 99, "max_bullets": 8}
    full = [["load", "load"]] * served.game.rounds(s)
    for bad in (
        "not json",
        "[1, 2]",
        json.dumps([other, [], 0.5]),
        json.dumps([{"rounds": s["rounds"], "max_bullets": 2}, [], 0.5]),
        json.dumps([s, [], 1.0]),
        json.dumps([s, [], -0.1]),
        json.dumps([s, [], True]),
        json.dumps([s, [["shoot 1", "load"]], 0.5]),  # no bullet to shoot
        json.dumps([s, [["load", "shoot 1"]], 0.5]),
        json.dumps([s, [["load"]], 0.5]),
        json.dumps([s, full, 0.5]),  # the game is over
        json.dumps([s, [["load", "x" * 500]], 0.5]),
        json.dumps({"settings": s, "history": [], "u": 0.5, "extra": 1}),
        "[" * 10_000 + "]" * 10_000,
        "1" * 30_000,
    ):
        with pytest.raises(InvalidQueryError):
            served.parse_query(bad)
    with pytest.raises(InvalidQueryError):
        rule([other, [], 0.5])
    assert served.render_output("shoot 1") == "shoot 1"
    assert served.check_answer("defend 2", "  Defend   2 ")
    with pytest.raises(FamilyError):
        served.render_output(3)


def test_inputs_are_legal_fresh_and_edge_cases_come_first() -> None:
    rule = _rule("hard", "lsd/mixed_subset")
    served = _served(rule)
    rng = random.Random(3)
    edges = served.differential_inputs(rng, 300)
    assert len(edges) == 300
    first = edges[0]
    assert first[1] == [] and first[2] == 0.0 and edges[2][2] == ALMOST_ONE
    lengths = {len(h) for _, h, _ in edges}
    assert max(lengths) == max(served.game.rounds(s) for s in served.evaluation_settings) - 1
    for q in edges + served.query_pool(rng, "hard", 20) + served.exploration_plan("hard", 12):
        assert served.parse_query(served.format_query(q)) == q
    asked = [served.random_query(rng) for _ in range(5)]
    tests = served.test_inputs(rng, 6, asked)
    assert len(tests) == 6 and not any(t in asked for t in tests)
    assert served.exploration_plan("hard", 12) == served.exploration_plan("hard", 12)
    with pytest.raises(FamilyError):
        served.version_space("hard")


def test_the_bare_family_serves_no_box_and_an_untrusted_rule_none() -> None:
    assert "fixed hidden strategy" in GSI.task_intro("easy")
    assert GSI.for_interface({}).task_intro("hard") == GSI.task_intro("hard")
    with pytest.raises(InvalidQueryError):
        GSI.parse_query("[{}, [], 0.5]")
    designed = Rule(family="GSI", kind="designed", level="easy", params={}, description="", fn=str)
    with pytest.raises(FamilyError, match="trusted opponent"):
        GSI.interface_of(designed)
