"""Each kind's behaviour on hand-written games: what its description promises."""

from __future__ import annotations

from fractions import Fraction

from blackboxes.games import get_game, get_strategy, play_game


def _replies(name: str, settings: dict, kind: str, params: tuple, mine: list[str]) -> list[str]:
    """The opponent's actions when the player plays ``mine`` (u = 0 every round)."""
    game = get_game(name)
    settings = {**settings, game.varying: len(mine)}
    record = play_game(
        game,
        settings,
        get_strategy(kind),
        params,
        lambda t, s, h: mine[t],
        [0.0] * len(mine),
    )
    return [r.opponent for r in record.rounds]


def test_cycle_and_tour() -> None:
    assert _replies("rps", {}, "cycle", ("rock", "paper"), ["rock"] * 5) == [
        "rock",
        "paper",
        "rock",
        "paper",
        "rock",
    ]
    tour = ("scissors", "rock", "paper")
    assert _replies("rps", {}, "tour", tour, ["rock"] * 4) == [*tour, "scissors"]


def test_beat_last_takes_the_kth_beater_on_the_wheel() -> None:
    # Paper is beaten by fire, scissors and sponge (the three before it on the wheel).
    game = get_game("rps7")
    assert game.counters("paper") == ("fire", "scissors", "sponge")
    got = _replies("rps7", {}, "beat_last", ("rock", 1), ["paper", "water", "rock"])
    assert got == ["rock", "scissors", game.counters("water")[1]]


def test_copies() -> None:
    assert _replies("rps", {}, "copy_last", ("paper",), ["rock", "scissors", "rock"]) == [
        "paper",
        "rock",
        "scissors",
    ]
    mine = ["rock", "scissors", "paper", "rock"]
    got = _replies("rps7", {}, "copy_two_back", ("fire", "air"), mine)
    assert got == ["fire", "air", "rock", "scissors"]


def test_frequency_ties_go_to_the_earliest_action() -> None:
    # After paper and scissors (one each) the most frequent is paper (earlier in the
    # order), which scissors beats; then scissors leads and rock beats it.
    mine = ["paper", "scissors", "scissors", "rock"]
    got = _replies("rps", {}, "frequency", ("rock", 0, 0), mine)
    assert got == ["rock", "scissors", "scissors", "rock"]
    # Over the last 3 moves only: paper, paper, rock, rock -> window (paper, rock, rock).
    mine = ["paper", "paper", "rock", "rock", "scissors"]
    got = _replies("rps", {}, "frequency", ("rock", 0, 3), mine)
    assert got == ["rock", "scissors", "scissors", "scissors", "paper"]


def test_reactive_loads_when_it_cannot_shoot() -> None:
    params = ("defend", "shoot", "defend", "load")  # first; after load, shoot, defend
    got = _replies("lsd", {"max_bullets": 3}, "reactive", params, ["load", "load", "defend"])
    # Round 2 wants to shoot with no bullet: it loads; round 3 it can shoot.
    assert got == ["defend", "load", "shoot"]


def test_pavlov_in_the_prisoners_dilemma() -> None:
    params = ("cooperate", 3, 1)  # classic Pavlov: stay after 3 or 5 points
    mine = ["cooperate", "defect", "defect", "cooperate", "cooperate"]
    got = _replies("pd", {}, "pavlov", params, mine)
    # C/C 3 stay; D/C gives it 0: shift to D; D/D gives 1: shift to C; C/C stay.
    assert got == ["cooperate", "cooperate", "defect", "cooperate", "cooperate"]


def test_trigger_tit_for_tat_and_grim() -> None:
    mine = ["rock", "paper", "rock", "rock"]
    assert _replies("rps", {}, "trigger", ("rock", "paper", "scissors"), mine) == [
        "rock",
        "rock",
        "scissors",
        "scissors",
    ]
    mine = ["defect", "cooperate", "defect", "defect", "cooperate", "cooperate"]
    assert _replies("pd", {}, "tit_for_tat", ("cooperate", 2), mine) == [
        "cooperate",
        "cooperate",
        "cooperate",
        "cooperate",
        "defect",
        "cooperate",
    ]
    assert _replies("pd", {}, "grim", (2,), mine) == ["cooperate"] * 3 + ["defect"] * 3


def test_patient_shooter() -> None:
    settings = {"max_bullets": 8}
    mine = ["load", "shoot 1", "load", "load", "load", "load", "load", "load"]
    got = _replies("lsd_scout", settings, "patient", (2, 2), mine)
    # Loads twice (the player shot meanwhile), shoots 2 while it has 2, loads again and
    # waits for the player's next shot, which never comes.
    assert got == ["load", "load", "shoot 2", "load", "load", "load", "load", "load"]
    mine = ["load"] * 10
    got = _replies("lsd", {"max_bullets": 3}, "patient", (0, 1), mine)
    # m = 0: it fires once it holds the cap (3), since the player never shoots.
    assert got == ["load"] * 3 + ["shoot"] * 3 + ["load"] * 3 + ["shoot"]


def test_bullet_map() -> None:
    params = ("load", "shoot", "defend", "defend")
    got = _replies("lsd", {"max_bullets": 3}, "bullet_map", params, ["load", "load", "shoot"])
    # (none, none) load; (some, some) defend; (some, some) defend.
    assert got == ["load", "defend", "defend"]


def test_piles_slice_and_median() -> None:
    game, piles = get_game("cards"), get_strategy("piles")
    op = piles.bind(game, {"cards": 8}, (4, (1, 3, 0, 2), "random"))
    start = game.initial_state({"cards": 8})
    assert op.distribution((), start) == {"card 3": Fraction(1, 2), "card 4": Fraction(1, 2)}
    mine = ["card 2", "card 1", "card 3", "card 4", "card 5", "card 6", "card 7", "card 8"]
    got = _replies("cards", {}, "median", (0, "up"), mine)
    assert got == [f"card {c}" for c in (4, 3, 2, 1, 5, 6, 7, 8)]
    mine = ["card 5", "card 1", "card 3", "card 4", "card 2", "card 6", "card 7", "card 8"]
    got = _replies("cards", {}, "median", (1, "down"), mine)  # an equal card goes down
    assert got == [f"card {c}" for c in (5, 4, 3, 2, 1, 6, 7, 8)]


def test_card_replies() -> None:
    mine = ["card 3", "card 6", "card 5", "card 1", "card 2", "card 4"]
    got = _replies("cards", {}, "cheap_beat", ("median", "highest"), mine)
    # 3 first (median of 6); beat 3 with 4; nothing beats 6: highest 6; beat 5: none
    # left above 5, highest is 5; beat 1 with 2; beat 2: only 1 left.
    assert got == [f"card {c}" for c in (3, 4, 6, 5, 2, 1)]
    got = _replies("cards", {}, "copy_card", ("highest",), mine)
    # 6; copy 3; 6 is gone: nearest 5; 5 gone: nearest 4; copy 1; 2.
    assert got == [f"card {c}" for c in (6, 3, 5, 4, 1, 2)]


def test_reactive_pair_answers_the_last_two_moves() -> None:
    game = get_game("rps")
    order = game.alphabet({})
    # Reply to (older, newer) = the action index (3 * older + newer) mod 3 in the order.
    table = tuple(order[(3 * i + j) % 3] for i in range(3) for j in range(3))
    params = ("paper", "scissors", *table)
    mine = ["rock", "scissors", "paper", "paper", "rock"]
    got = _replies("rps", {}, "reactive_pair", params, mine)
    # Rounds 3-5 answer (rock, scissors) -> 2, (scissors, paper) -> 7 % 3 = 1,
    # (paper, paper) -> 4 % 3 = 1.
    assert got == ["paper", "scissors", order[2], order[1], order[1]]


def test_wary_changes_once_beaten_patience_times() -> None:
    # Cycle rock, paper; after 3 player wins it plays the action one after the player's
    # previous one in the order rock, paper, scissors.
    params = (("rock", "paper"), 3, 1)
    mine = ["paper", "scissors", "rock", "scissors", "paper", "rock", "rock"]
    got = _replies("rps", {}, "wary", params, mine)
    # Wins in rounds 1, 2 and 4 (paper > rock, scissors > paper, scissors > paper).
    assert got[:4] == ["rock", "paper", "rock", "paper"]
    # One after the previous scissors (wrapping around), paper, rock.
    assert got[4:] == ["rock", "scissors", "paper"]
    # Without three wins it cycles for ever.
    assert _replies("rps", {}, "wary", params, ["rock"] * 6) == ["rock", "paper"] * 3
