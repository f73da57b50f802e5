"""Game episodes (GSI) through the protocol: scoring against the exact optimum, the
references beside it, invalid replies, box faults, determinism, the record's own checks,
the LLM agent (scripted provider) and a person (scripted lines).

The opponent here is the trusted strategy behind a stand-in environment, so the
protocol's bookkeeping is checked exactly; the real sandboxed boxes are tested with the
GSI family.
"""

from __future__ import annotations

import itertools
import json
from fractions import Fraction
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from pydantic import ValidationError

from blackboxes.games import (
    Game,
    Params,
    Strategy,
    best_response_value,
    get_game,
    get_strategy,
    mixture_space,
)
from evaluator.human import PlayIO
from evaluator.kinds.game.baselines import sweep, sweep_order
from evaluator.kinds.game.human import HumanGameAgent
from evaluator.kinds.game.llm import LlmGameAgent
from evaluator.kinds.game.protocol import (
    GameAgentContext,
    GameBriefing,
    GameEpisodeContext,
    RoundResult,
    game_agent_names,
    make_game_agent,
    run_game_episode,
)
from evaluator.kinds.game.summary import summarise_games
from evaluator.kinds.game.trajectory import GameTrajectory
from evaluator.llm_agents import LlmAgentSettings
from evaluator.spec import TurnShot
from oracle_bench.rng import rng_for

ONE_AT_ONE = TurnShot(1, 1)


class Env:
    """The box: the trusted opponent replayed over the history, like a sandbox worker."""

    layers = frozenset({"test"})

    def __init__(self, game: Game, strategy: Strategy, params: Params, move: Any = None) -> None:
        self.game, self.strategy, self.params, self.move = game, strategy, params, move

    def call(self, settings: dict[str, int], history: list[list[str]], u: float) -> Any:
        op = self.strategy.bind(self.game, settings, self.params)
        st, state = op.initial(), self.game.initial_state(settings)
        for a, b in history:
            st = op.update(st, a, b)
            state, _ = self.game.step(state, a, b)
        value = op.act(st, state, u) if self.move is None else self.move
        return SimpleNamespace(ok=True, value=value, error=None)


class Family:
    """The family's view the protocol reads; the agents' prior knows the kind here."""

    def __init__(self, game: Game, strategy: Strategy, params: Params, settings: list[Any]):
        self.game, self.strategy, self.params = game, strategy, params
        self.evaluation_settings, self.test_items = settings, len(settings)

    def true_opponent(self, hidden: Any) -> tuple[Strategy, Params]:
        return self.strategy, self.params

    def agent_space(self, settings: Any) -> Any:
        return mixture_space(self.game, [self.strategy.name], settings)


def _setup(game_name: str, kind: str, index: int = 0) -> tuple[Family, Env, Any]:
    game, strategy = get_game(game_name), get_strategy(kind)
    rng = rng_for(4, game_name, kind)
    space = strategy.space(game, game.settings_for(rng, "easy"))
    params = space[index % len(space)]
    settings = [game.settings({"rounds": n}) for n in (6, 8)] if game_name != "cards" else None
    if settings is None:
        settings = game.evaluation_settings(rng, "easy", 2)
    family = Family(game, strategy, params, settings)
    box = SimpleNamespace(
        info=SimpleNamespace(
            id=f"{game_name}-{kind}", family="GSI", level="easy", task_intro="rules"
        ),
        facts=SimpleNamespace(rule_kind=f"{game_name}/{kind}", log2_h=2.0),
        hidden=SimpleNamespace(test_seed=11),
        digest="d" * 64,
    )
    return family, Env(game, strategy, params), box


def play(
    agent: Any,
    game: str = "rps",
    kind: str = "cycle",
    spec: TurnShot = ONE_AT_ONE,
    name: str = "x",
    move: Any = None,
    index: int = 0,
    context: Any = "reset",
) -> GameTrajectory:
    family, env, box = _setup(game, kind, index)
    env.move = move
    ctx = GameEpisodeContext(suite="s", agent_name=name, spec=spec, context=context)
    return run_game_episode(box, family, agent, env, ctx)


def baseline(name: str, game: str = "rps", kind: str = "cycle", index: int = 0) -> Any:
    family, _, _ = _setup(game, kind, index)
    return make_game_agent(name, GameAgentContext(family, "easy", rng_for(0, "agent", name)))


class Scripted:
    def __init__(self, replies: list[Any]) -> None:
        self.replies = replies
        self.results: list[RoundResult] = []

    def start(self, briefing: GameBriefing) -> None:
        self.briefing = briefing

    def begin_setting(self, index: int, settings: Any, message: str) -> None:
        pass

    def begin_game(self, phase: str, number: int, message: str) -> None:
        pass

    def act(self, banner: str, legal: tuple[str, ...]) -> Any:
        return self.replies.pop(0) if self.replies else legal[-1]

    def observe(self, result: RoundResult) -> None:
        self.results.append(result)

    def end_game(self, score: int, message: str) -> None:
        pass


def test_the_baselines_are_registered() -> None:
    assert game_agent_names() == ["adaptive", "fixed", "random"]


@pytest.mark.parametrize(
    ("game", "kind"), [("rps", "cycle"), ("rps7", "mixed_subset"), ("pd", "tit_for_tat")]
)
def test_scores_are_the_best_evaluation_game_over_the_exact_optimum(game: str, kind: str) -> None:
    family, _, _ = _setup(game, kind)
    for name in ("random", "fixed", "adaptive"):
        traj = play(baseline(name, game, kind), game, kind, TurnShot(1, 2), name)
        assert traj.status == "completed", traj.error
        for s in traj.settings_played:
            optimum = best_response_value(family.game, s.settings, family.strategy, family.params)
            assert s.optimum == float(optimum)
            assert s.best == max(g.score for g in s.evaluation)
            assert s.normalised == min(1.0, max(0.0, float(Fraction(s.best) / optimum)))
            assert len(s.exploration) == 1 and len(s.evaluation) == 2
            assert 0 <= s.uniform <= s.optimum + 1e-9 and s.security <= s.optimum + 1e-9
        mean = sum(s.normalised or 0.0 for s in traj.settings_played) / 2
        assert traj.score == pytest.approx(mean)


def test_rps7_against_uniform_rock_paper_air_is_two_thirds_a_round_not_three_sevenths() -> None:
    # ORACLE normalises this opponent by 3/7 a round; always paper earns 2/3.
    game, strategy = get_game("rps7"), get_strategy("mixed_subset")
    settings = game.settings({"rounds": 9})
    params = next(p for p in strategy.space(game, settings) if set(p) == {"rock", "paper", "air"})
    family = Family(game, strategy, params, [settings])
    box = _setup("rps7", "mixed_subset")[2]
    traj = run_game_episode(
        box,
        family,
        make_game_agent("adaptive", GameAgentContext(family, "easy", rng_for(0, "a"))),
        Env(game, strategy, params),
        GameEpisodeContext(suite="s", agent_name="adaptive", spec=ONE_AT_ONE),
    )
    assert best_response_value(game, settings, strategy, params) == Fraction(6)
    assert traj.settings_played[0].optimum == 6.0


def test_an_invalid_reply_plays_the_first_legal_action_and_says_so() -> None:
    agent = Scripted(["nonsense", 42, "x" * 2_000_000, "Rock"])
    traj = play(agent)
    rounds = traj.settings_played[0].exploration[0].rounds
    assert [r.error is not None for r in rounds[:4]] == [True, True, True, False]
    assert [r.action for r in rounds[:3]] == ["rock"] * 3
    assert traj.invalid_rounds == 3
    assert agent.results[0].note is not None and "played rock" in agent.results[0].note
    assert len(rounds[2].text) < 2_000


def test_an_illegal_opponent_move_fails_the_episode_as_a_box() -> None:
    traj = play(baseline("adaptive"), move="dynamite")
    assert traj.status == "failed" and traj.failure == "box" and traj.score is None
    assert "not a legal opponent action" in str(traj.error)


def test_runs_are_deterministic_and_every_agent_meets_the_same_opponent_noise() -> None:
    a = play(baseline("random", "rps7", "mixed_subset"), "rps7", "mixed_subset", name="random")
    b = play(baseline("random", "rps7", "mixed_subset"), "rps7", "mixed_subset", name="random")
    assert a.model_dump_json() == b.model_dump_json()


def test_a_record_that_contradicts_itself_is_refused() -> None:
    traj = play(baseline("adaptive"), name="adaptive")
    data = json.loads(traj.model_dump_json())
    for mutate in (
        lambda d: d.update(score=0.25),
        lambda d: d.update(invalid_rounds=2),
        lambda d: d["settings_played"][0].update(best=0),
        lambda d: d["settings_played"][0]["evaluation"][0].update(score=99),
        lambda d: d.update(turns=0),
    ):
        bad = json.loads(json.dumps(data))
        mutate(bad)
        with pytest.raises(ValidationError):
            GameTrajectory.model_validate(bad)


def test_the_summary_reports_the_references_on_the_score_scale() -> None:
    trajs = [play(baseline(a), name=a) for a in ("random", "fixed", "adaptive")]
    summary = summarise_games(trajs, suite="s", spec="1@1", context="reset", seed=0, repeats=1)
    by_agent = {g.agent: g for g in summary.groups}
    assert by_agent["adaptive"].score_mean == 1.0
    # RPS against a deterministic cycle: a best response wins every round; the
    # security value is a third of that.
    assert by_agent["adaptive"].security_mean == pytest.approx(1 / 3, abs=1e-6)
    assert [r.rule_kind for r in summary.strategies] == ["rps/cycle"] * 3


def _script(path: Path, lines: list[dict[str, Any]]) -> str:
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return f"scripted/{path}"


def test_an_llm_replaying_the_adaptive_actions_gets_the_adaptive_record(tmp_path: Path) -> None:
    adaptive = play(baseline("adaptive"), name="adaptive")
    actions = [
        r.action
        for s in adaptive.settings_played
        for g in (*s.exploration, *s.evaluation)
        for r in g.rounds
    ]
    lines = [{"text": "hmm"}] + [
        {"tool_calls": [{"name": "play", "arguments": {"action": a.upper()}}]} for a in actions
    ]
    name = _script(tmp_path / "g.jsonl", lines)
    family, _, _ = _setup("rps", "cycle")
    agent = LlmGameAgent(name, GameAgentContext(family, "easy", rng_for(0)), LlmAgentSettings())
    traj = play(agent, name=name)
    assert traj.status == "completed", traj.error
    assert traj.score == adaptive.score and traj.invalid_rounds == 0
    assert traj.usage is not None and traj.usage.calls == len(lines)


def test_a_person_plays_rounds_with_the_free_commands() -> None:
    replies = iter([":help", "rock", ":history", *["paper"] * 40])
    shown: list[str] = []

    def read(prompt: str) -> str:
        try:
            return next(replies)
        except StopIteration:
            raise EOFError from None

    traj = play(HumanGameAgent(PlayIO(read, shown.append)))
    assert traj.status == "completed"
    first = traj.settings_played[0].exploration[0].rounds
    assert [r.action for r in first[:2]] == ["rock", "paper"]
    assert any("legal" in s for s in shown)
    assert any(line.startswith("Round 1: you rock") for line in "\n".join(shown).splitlines())


def test_fixed_and_random_play_evaluation_games_open_loop_and_adaptive_does_not() -> None:
    """Tier 2 does not respond to feedback: whatever the opponent answers, a fixed or
    random agent's evaluation play is the plan it made before the game."""
    family, _, _ = _setup("rps", "copy_last")
    settings = family.evaluation_settings[0]
    legal = family.game.actions(family.game.initial_state(settings))

    def evaluation(name: str, answers: str) -> list[str]:
        agent = make_game_agent(name, GameAgentContext(family, "easy", rng_for(0, name)))
        agent.start(GameBriefing("rules", (dict(settings),), 1, 1, "reset"))
        agent.begin_setting(0, settings, "")
        agent.begin_game("evaluate", 0, "")
        played = []
        for t in range(family.game.rounds(settings)):
            action = agent.act("", legal)
            played.append(action)
            agent.observe(RoundResult(t + 1, action, answers, 0))
        return played

    for name in ("fixed", "random"):
        assert evaluation(name, "rock") == evaluation(name, "paper")
    assert evaluation("adaptive", "rock") != evaluation("adaptive", "paper")


@pytest.mark.parametrize("n", range(1, 8))
def test_the_fixed_sweep_tours_every_action_then_holds_every_pair_once(n: int) -> None:
    walk = sweep(n)
    assert walk[:n] == list(range(n)) and len(walk) == n * n + 1 and walk[-1] == walk[0]
    pairs = list(itertools.pairwise(walk))
    assert sorted(pairs) == [(i, j) for i in range(n) for j in range(n)]


@pytest.mark.parametrize(("n", "order"), [(2, 3), (2, 4), (3, 3), (1, 3)])
def test_a_longer_sweep_holds_every_run_once(n: int, order: int) -> None:
    walk = sweep(n, order)
    runs = [tuple(walk[i : i + order]) for i in range(len(walk) - order + 1)]
    assert sorted(runs) == sorted(itertools.product(range(n), repeat=order))
    assert walk[-(order - 1) :] == walk[: order - 1]


def test_two_action_sweeps_outlast_every_cycle() -> None:
    # A period-4 sweep of pairs would meet cycles of up to 4 moves on their own ground.
    assert [sweep_order(n, 4) for n in (1, 2, 3, 7)] == [2, 3, 2, 2]
    assert sweep_order(2, 8) == 4


def test_fixed_exploration_is_the_sweep_over_the_games_actions() -> None:
    traj = play(baseline("fixed", "rps7", "cycle"), "rps7", "cycle")
    order = get_game("rps7").alphabet({})
    first = traj.settings_played[0].exploration[0].rounds
    assert [r.action for r in first] == [order[i] for i in sweep(7)[: len(first)]]


@pytest.mark.parametrize(("game", "order"), [("rps", 3), ("pd", 4)])
def test_the_sweep_runs_as_long_as_the_longest_context_a_map_of_the_prior_reads(
    game: str, order: int
) -> None:
    # A map of the last k moves sees a new context every round of a sweep of k-runs.
    traj = play(baseline("fixed", game, "reactive_memory"), game, "reactive_memory")
    actions = get_game(game).alphabet({})
    first = traj.settings_played[0].exploration[0].rounds
    assert [r.action for r in first] == [actions[i] for i in sweep(len(actions), order)[:6]]
    runs = {tuple(r.action for r in first[i : i + order]) for i in range(len(first) - order + 1)}
    assert len(runs) == len(first) - order + 1


@pytest.mark.parametrize(("context", "fresh"), [("reset", True), ("keep", False)])
def test_baselines_forget_earlier_settings_only_when_the_context_resets(
    context: str, fresh: bool
) -> None:
    family, _, _ = _setup("rps", "cycle", index=40)
    prior = family.agent_space(family.evaluation_settings[0]).count()
    agent = baseline("fixed", "rps", "cycle", index=40)
    spaces = []
    agent.begin_setting = _recording(agent.begin_setting, lambda: spaces.append(agent.space))
    play(agent, "rps", "cycle", index=40, spec=TurnShot(1, 1), context=context)
    assert len(spaces) == 2 and spaces[0].count() == prior
    assert (spaces[1].count() == prior) is fresh


def _recording(method: Any, after: Any) -> Any:
    def wrapped(*args: Any) -> Any:
        result = method(*args)
        after()
        return result

    return wrapped


def test_adaptive_exploration_sets_off_a_wary_opponent_that_blind_play_misses() -> None:
    """Cycle rock, paper, scissors; after 3 player wins it plays the action two after the
    player's previous one (games of 6 and 8 rounds). The sweep wins too rarely to set it
    off, so its open-loop evaluation play keeps beating a cycle that is gone; the
    adaptive explorer wins on purpose and, in the 8-round game, sees the change in time
    to play the optimum."""
    params = (("rock", "paper", "scissors"), 3, 2)
    family, _, _ = _setup("rps", "wary")
    index = list(get_strategy("wary").space(family.game, {"rounds": 8})).index(params)
    played = {
        name: play(baseline(name, "rps", "wary", index), "rps", "wary", index=index)
        for name in ("fixed", "adaptive")
    }
    wins = {
        name: [sum(r.points for r in s.exploration[0].rounds) for s in traj.settings_played]
        for name, traj in played.items()
    }
    assert wins["fixed"] == [1, 2] and min(wins["adaptive"]) >= 3
    fixed, adaptive = (
        [s.normalised for s in played[n].settings_played] for n in ("fixed", "adaptive")
    )
    assert all(a > f for a, f in zip(adaptive, fixed, strict=True)) and adaptive[1] == 1.0
