"""GSI designs: an opponent as a finite-state machine (``--design llm``).

The machine is checked and refused with a reason the designer can act on; its exact
optimum equals an independent game-tree walk for every setting; its box code (the
template a correct coder would write) agrees with the rule in the real sandbox."""

from __future__ import annotations

import random
from typing import Any, cast

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from blackboxes.box import Level
from blackboxes.families import get_family
from blackboxes.families.gsi import GsiFamily
from blackboxes.games import (
    MACHINE,
    MAX_STATES,
    GameError,
    best_response_value,
    brute_force_value,
    expected_score,
    get_game,
    machine_params,
    machine_table,
    uniform_policy,
)
from oracle_bench.errors import FamilyError
from sandbox import SandboxWorker, call_box
from templates import render

GSI = cast(GsiFamily, get_family("GSI"))
MACHINE_GAMES = ("anti_rps", "pd", "pennies", "rps", "rps7")

TIT_FOR_TAT = [
    {"play": {"cooperate": 1}, "next": {"cooperate": 0, "defect": 1}},
    {"play": {"defect": 1}, "next": {"cooperate": 0, "defect": 1}},
]
# Rock twice, then whatever beats the player's last move; a mixed state after paper.
ROCKY = [
    {"play": {"rock": 1}, "next": {"rock": 1, "paper": 2, "scissors": 1}},
    {"play": {"rock": 1}, "next": {"rock": 2, "paper": 2, "scissors": 0}},
    {"play": {"paper": 1, "scissors": 3}, "next": {"rock": 0, "paper": 1, "scissors": 2}},
]


@st.composite
def machines(draw: st.DrawFn, game_name: str) -> list[dict[str, Any]]:
    """A random machine of ``game_name``: 1 to 4 states, mixed states now and then."""
    actions = get_game(game_name).alphabet(get_game(game_name).settings())
    n = draw(st.integers(1, 4))
    states = []
    for _ in range(n):
        played = draw(st.lists(st.sampled_from(actions), min_size=1, max_size=3, unique=True))
        play = {a: draw(st.integers(1, 5)) for a in played}
        states.append({"play": play, "next": {a: draw(st.integers(0, n - 1)) for a in actions}})
    return states


@hsettings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_optimum_of_any_machine_equals_the_game_tree_walk(data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(MACHINE_GAMES))
    game = get_game(name)
    params = machine_params(game, data.draw(machines(name)))
    # The tree walk costs (|A| |B|)^rounds: a few rounds of each game.
    for rounds in (1, 2, 3) if name == "rps7" else (1, 3, 4):
        settings = game.settings({"rounds": rounds})
        assert best_response_value(game, settings, MACHINE, params) == brute_force_value(
            game, settings, MACHINE, params
        )


def test_machine_values_are_exact() -> None:
    pd, rps = get_game("pd"), get_game("rps")
    tft = machine_params(pd, TIT_FOR_TAT)
    # Against tit-for-tat over n rounds: cooperate, then defect in the last round (3n + 2).
    for n in (1, 5, 12):
        assert best_response_value(pd, {"rounds": n}, MACHINE, tft) == 3 * n + 2
    rocky = machine_params(rps, ROCKY)
    # Two rounds of rock (paper wins both), then paper's answer: the mixed state plays
    # paper 1/4, scissors 3/4, so rock wins 3/4 of the third round.
    assert str(best_response_value(rps, {"rounds": 3}, MACHINE, rocky)) == "11/4"
    uniform = expected_score(rps, {"rounds": 3}, MACHINE, rocky, uniform_policy(rps))
    assert str(uniform) == "1"


def test_machine_tables_round_trip_in_the_games_order() -> None:
    rps = get_game("rps")
    shuffled = [
        {"play": {"scissors": 3, "paper": 1}, "next": {"scissors": 0, "rock": 0, "paper": 0}}
    ]
    params = machine_params(rps, shuffled)
    assert params == (
        ((("paper", 1), ("scissors", 3)), (("rock", 0), ("paper", 0), ("scissors", 0))),
    )
    assert machine_params(rps, machine_table(params)) == params
    op = MACHINE.bind(rps, {"rounds": 5}, params)
    # Inverse CDF in the game's order: paper below 1/4, scissors from there.
    assert [op.act(0, (), u) for u in (0.0, 0.2499, 0.25, 0.99)] == [
        "paper",
        "paper",
        "scissors",
        "scissors",
    ]


@pytest.mark.parametrize(
    ("game", "states", "message"),
    [
        ("lsd", TIT_FOR_TAT, "machines play games"),
        ("pd", [], "a list of 1 to 16"),
        ("pd", [{"play": {"cooperate": 1}}], "exactly the keys play and next"),
        ("pd", [{"play": {}, "next": {}}], "maps actions to positive integer weights"),
        ("pd", [{"play": {"nap": 1}, "next": {}}], "actions are cooperate, defect"),
        ("pd", [{"play": {"defect": 0}, "next": {}}], "is 1..1000, not 0"),
        ("pd", [{"play": {"defect": True}, "next": {}}], "is an integer"),
        ("pd", [{"play": {"defect": 1}, "next": {"defect": 0}}], "for each of cooperate, defect"),
        ("pd", [{"play": {"defect": 1}, "next": {"defect": 0, "cooperate": 1}}], "no state (0..0)"),
    ],
)
def test_malformed_machines_are_refused_with_what_to_fix(
    game: str, states: Any, message: str
) -> None:
    with pytest.raises(GameError, match=message.replace("(", r"\(").replace(")", r"\)")):
        machine_params(get_game(game), states)


def test_too_many_states_are_refused() -> None:
    loop = {"play": {"rock": 1}, "next": {"rock": 0, "paper": 0, "scissors": 0}}
    machine_params(get_game("rps"), [loop] * MAX_STATES)
    with pytest.raises(GameError, match="1 to 16"):
        machine_params(get_game("rps"), [loop] * (MAX_STATES + 1))


@pytest.mark.parametrize(
    ("design", "message"),
    [
        ({"game": "pd"}, "exactly the fields game and states"),
        ({"game": "cards", "states": TIT_FOR_TAT}, "a machine plays one of anti_rps"),
        (
            {
                "game": "pd",
                "states": [{"play": {"defect": 1}, "next": {"cooperate": 0, "defect": 0}}],
            },
            "plays one action whatever happens",
        ),
        (
            # Defects for ever once it defected; it starts defecting: constant after all.
            {
                "game": "pd",
                "states": [
                    {"play": {"defect": 1}, "next": {"cooperate": 0, "defect": 0}},
                    {"play": {"cooperate": 1}, "next": {"cooperate": 1, "defect": 1}},
                ],
            },
            "plays one action whatever happens",
        ),
    ],
)
def test_designs_are_checked_as_the_designer_is_told(design: Any, message: str) -> None:
    with pytest.raises(FamilyError, match=message):
        GSI.check_design("easy", "an opponent", design)


def test_a_design_needs_a_description() -> None:
    with pytest.raises(FamilyError, match="needs a description"):
        GSI.check_design("easy", "  ", {"game": "pd", "states": TIT_FOR_TAT})


@pytest.mark.parametrize("level", ["easy", "hard"])
def test_the_design_tool_offers_the_games_a_machine_can_play(level: Level) -> None:
    schema = GSI.design_schema(level)
    assert schema is not None and sorted(schema) == ["game", "states"]
    assert schema["game"]["enum"] == list(MACHINE_GAMES)
    brief = GSI.design_brief(level)
    assert "- rps7 (actions in order: rock, fire, scissors, sponge, paper, air, water)" in brief
    assert "`rock` beats `fire` and `scissors` and `sponge`" in brief
    assert f"Level {level}" in brief


def test_a_designed_rule_is_seeded_exact_and_owner_side() -> None:
    design = {"game": "rps", "states": ROCKY}
    rule = GSI.rule_from_design("hard", "Rock, rock, then beats you.", design, random.Random(4))
    again = GSI.rule_from_design("hard", "Rock, rock, then beats you.", design, random.Random(4))
    assert rule.params == again.params and rule.kind == "rps/machine" and rule.reference
    assert rule.description.startswith("Rock, rock, then beats you.\n\nExactly: ")
    assert "state 2: plays paper with probability 1/4, scissors with probability 3/4" in (
        rule.description
    )
    # Rebuilt from hidden.json's parameters, exactly.
    rebuilt = GSI.rule_from_params("rps/machine", "hard", rule.params)
    assert rebuilt.params == rule.params and rebuilt.description == rule.description
    info, facts = GSI.box_records("GSI-hard-0000", rule)
    assert facts.rule_kind == "rps/machine" and facts.t_info is None and facts.log2_h is None
    assert info.interface == {"game": "rps", "level": "hard", "settings": rule.params["settings"]}
    assert "machine" not in info.task_intro and "state" not in info.task_intro
    hidden = GSI.hidden_info(rule, 7)
    rps = get_game("rps")
    for ref, settings in zip(hidden.params["values"], rule.params["settings"], strict=True):
        assert ref["optimum"] == str(
            best_response_value(rps, settings, MACHINE, machine_params(rps, ROCKY))
        )
        low, high = rps.level_ranges["hard"]["rounds"]
        assert low <= settings["rounds"] <= high


def test_the_machine_template_agrees_with_the_rule_in_the_sandbox() -> None:
    for game, states in (("pd", TIT_FOR_TAT), ("rps", ROCKY)):
        rule = GSI.rule_from_design(
            "easy", "designed", {"game": game, "states": states}, random.Random(1)
        )
        served = GSI.for_rule(rule)
        name, context = GSI.code_template(rule)
        code = render(name, **context)
        inputs = served.differential_inputs(random.Random(2), 150)
        with SandboxWorker(code) as worker:
            got = [call_box(worker, served.box_call(x)).value for x in inputs]
        assert got == [rule(x) for x in inputs]


def test_a_machine_never_enters_a_level_or_a_prior() -> None:
    assert all("machine" not in kind for kind in GSI.kinds("easy") + GSI.kinds("hard"))
    with pytest.raises(GameError, match="designed"):
        MACHINE.space(get_game("rps"), {})
    rule = GSI.rule_from_design(
        "easy", "d", {"game": "pd", "states": TIT_FOR_TAT}, random.Random(1)
    )
    served = cast(GsiFamily, GSI.for_rule(rule))
    assert "machine" not in served.agent_space(served.evaluation_settings[0]).kinds
    hostile = {**rule.params, "params": [[["cooperate", 1]]]}
    with pytest.raises(FamilyError, match="machine"):
        GSI.rule_from_params("pd/machine", "easy", hostile)
    with pytest.raises(FamilyError, match="designer's description"):
        GSI.rule_from_params("pd/cycle", "easy", {**rule.params, "kind": "cycle"})
