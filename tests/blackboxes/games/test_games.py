"""Game rules: outcomes, legality, parsing, settings and the rules text."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

from blackboxes.games import Bullets, GameError, Hands, game_names, get_game
from oracle_bench.errors import FamilyError, UnknownNameError


def _points(name: str, a: str, b: str, state: object = ()) -> tuple[int, int]:
    out = get_game(name).resolve(state, a, b)
    return out.player_points, out.opp_points


def test_registry() -> None:
    assert game_names() == ["anti_rps", "cards", "lsd", "lsd_scout", "pd", "pennies", "rps", "rps7"]
    assert get_game("RPS7") is get_game("rps7")
    with pytest.raises(UnknownNameError):
        get_game("chess")
    assert issubclass(GameError, FamilyError) and issubclass(GameError, ValueError)


def test_rps_family_outcomes() -> None:
    assert _points("rps", "paper", "rock") == (1, 0)
    assert _points("rps", "rock", "paper") == (0, 1)
    assert _points("rps", "rock", "rock") == (0, 0)
    assert _points("anti_rps", "scissors", "rock") == (1, 0)  # reversed
    assert _points("anti_rps", "rock", "paper") == (1, 0)
    assert _points("anti_rps", "paper", "rock") == (0, 1)
    assert _points("pennies", "heads", "heads") == (1, 0)
    assert _points("pennies", "heads", "tails") == (0, 1)
    assert _points("pd", "defect", "cooperate") == (5, 0)
    assert _points("pd", "cooperate", "cooperate") == (3, 3)


def test_rps7_wheel() -> None:
    game = get_game("rps7")
    wheel = game.alphabet({})
    assert wheel == ("rock", "fire", "scissors", "sponge", "paper", "air", "water")
    for i, a in enumerate(wheel):
        beaten = {wheel[(i + d) % 7] for d in (1, 2, 3)}
        for b in wheel:
            assert _points("rps7", a, b) == (int(b in beaten), int(b != a and b not in beaten))
    # Paper beats rock and air and ties paper: the 2/3 of ORACLE's rps7_random_3.
    assert [_points("rps7", "paper", b)[0] for b in ("rock", "paper", "air")] == [1, 0, 1]


def test_lsd_rules() -> None:
    game = get_game("lsd")
    start = game.initial_state({"max_bullets": 2})
    assert start == Bullets(0, 0, 2)
    assert game.actions(start) == ("load", "defend")
    s, pts = game.step(start, "load", "load")
    s, pts = game.step(s, "load", "defend")
    assert s == Bullets(2, 1, 2)
    s, pts = game.step(s, "load", "load")  # a load at the cap is wasted
    assert s == Bullets(2, 2, 2) and pts == 0
    assert _points("lsd", "shoot", "load", s) == (1, 0)
    assert _points("lsd", "shoot", "defend", s) == (0, 1)
    assert _points("lsd", "shoot", "shoot", s) == (0, 0)
    with pytest.raises(GameError):
        game.step(start, "shoot", "load")
    with pytest.raises(GameError):
        game.step(start, "load", "shoot")


def test_lsd_scout_rules() -> None:
    game = get_game("lsd_scout")
    s = Bullets(3, 2, 8)
    assert game.actions(s) == (
        "load", "scout", "shoot 1", "shoot 2", "shoot 3", "defend 1", "defend 2", "defend 3"
    )  # fmt: skip
    assert _points("lsd_scout", "shoot 2", "defend 2", s) == (0, 1)  # y >= x holds
    assert _points("lsd_scout", "shoot 3", "defend 2", s) == (1, 0)  # y < x breaks
    assert _points("lsd_scout", "shoot 2", "shoot 1", s) == (1, 0)
    assert _points("lsd_scout", "shoot 2", "shoot 2", s) == (0, 0)
    assert _points("lsd_scout", "scout", "shoot 1", s) == (0, 1)
    assert _points("lsd_scout", "defend 1", "load", s) == (0, 0)
    assert game.resolve(s, "shoot 3", "defend 2").state == Bullets(0, 0, 8)


def test_cards_rules() -> None:
    game = get_game("cards")
    start = game.initial_state({"cards": 4})
    assert start == Hands(0b1111, 0b1111)
    s, pts = game.step(start, "card 3", "card 2")
    assert pts == 1 and game.actions(s) == ("card 1", "card 2", "card 4")
    assert game.opp_actions(s) == ("card 1", "card 3", "card 4")
    with pytest.raises(GameError, match="not available"):
        game.parse_action(s, "card 3")
    assert game.rounds({"cards": 4}) == 4
    # Canonical states: only the order of the cards held matters.
    assert game.canonical(Hands(0b0110, 0b0011)) == game.canonical(Hands(0b1100, 0b0110))


def test_parse_action_is_lenient_in_form_strict_in_meaning() -> None:
    rps, cards, scout = get_game("rps"), get_game("cards"), get_game("lsd_scout")
    for text in ("rock", " Rock ", "ROCK", "`rock`", '"rock"', "rock."):
        assert rps.parse_action((), text) == "rock"
    for bad in ("r", "rocks", "rock paper", "", "stone"):
        with pytest.raises(GameError):
            rps.parse_action((), bad)
    with pytest.raises(GameError, match="at most 200"):
        rps.parse_action((), "rock" + " " * 197)
    start = cards.initial_state({"cards": 8})
    for text in ("card 7", "Card  7", "card7", "7"):
        assert cards.parse_action(start, text) == "card 7"
    with pytest.raises(GameError):
        cards.parse_action(start, "card 9")
    s = Bullets(2, 0, 8)
    assert scout.parse_action(s, "SHOOT 2") == "shoot 2"
    with pytest.raises(GameError, match="not available"):
        scout.parse_action(s, "shoot 3")
    with pytest.raises(GameError):
        scout.parse_action(s, "shoot")


def test_settings_are_checked() -> None:
    rps = get_game("rps")
    assert rps.settings() == {"rounds": 10}
    for bad in ({"turns": 5}, {"rounds": 0}, {"rounds": 51}, {"rounds": True}, {"rounds": "5"}):
        with pytest.raises(GameError):
            rps.settings(bad)  # type: ignore[arg-type]
    with pytest.raises(GameError):
        get_game("lsd").settings({"max_bullets": 9})


@pytest.mark.parametrize(
    "name", ["rps", "rps7", "anti_rps", "pennies", "pd", "lsd", "lsd_scout", "cards"]
)
def test_level_settings(name: str) -> None:
    game = get_game(name)
    for level in ("easy", "hard"):
        a = game.evaluation_settings(random.Random(3), level)
        assert a == game.evaluation_settings(random.Random(3), level)
        values = [s[game.varying] for s in a]
        assert len(a) == 4 and values == sorted(set(values))
        assert all(
            {k: v for k, v in s.items() if k != game.varying}
            == {k: v for k, v in a[0].items() if k != game.varying}
            for s in a
        )
        low, high = game.level_ranges[level][game.varying]
        assert all(low <= v <= high for v in values)
    with pytest.raises(GameError):
        game.settings_for(random.Random(1), "medium")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "name", ["rps", "rps7", "anti_rps", "pennies", "pd", "lsd", "lsd_scout", "cards"]
)
def test_rules_text_names_everything_the_agent_needs(name: str) -> None:
    game = get_game(name)
    settings = game.settings_for(random.Random(0), "hard")
    text = game.rules_text(settings)
    assert str(game.rounds(settings)) in text
    assert "point" in text and "After each round you are told" in text
    for action in game.actions(game.initial_state(settings)):
        word = action.split()[0]
        assert word in text
    assert "\n" not in text


def test_importing_games_is_light() -> None:
    code = (
        "import sys, blackboxes.games as g; g.get_strategy('cycle'); "
        "print(sorted({m.partition('.')[0] for m in sys.modules} & {'numpy', 'scipy', 'pydantic'}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
