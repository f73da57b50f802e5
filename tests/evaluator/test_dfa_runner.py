"""DFA suites through the runner and the CLI: real boxes, the real sandbox, resume, summary."""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

import pytest

from blackboxes.automata.dfa import DFA
from blackboxes.automata.learners import learn
from blackboxes.automata.oracle import CounterexampleMode, TargetOracle
from blackboxes.automata.sampling import sample_minimal_dfa
from blackboxes.box import (
    BoxFacts,
    BoxInfo,
    DfaBaselineCost,
    DfaBoxInfo,
    DfaFacts,
    HiddenInfo,
    Provenance,
    SuiteInfo,
    SuiteOwnerInfo,
)
from blackboxes.store import load_suite, load_suite_boxes, write_box, write_suite
from evaluator._run_folder import default_run_root
from evaluator.cli import main
from evaluator.kinds.dfa.metrics import dfa_episode_metrics
from evaluator.kinds.dfa.protocol import DfaEnvironment, run_dfa_episode
from evaluator.kinds.dfa.summary import DfaSummary, parse_buckets, summarise_dfa
from evaluator.kinds.dfa.trajectory import load_dfa_trajectory
from evaluator.runner import evaluate_suite
from oracle_bench import __version__, rng_for
from oracle_bench.errors import UsageError
from oracle_bench.jsonio import sha256_hex

BASELINES = ["lstar", "kv", "ttt"]

BOX_CODE = """\
DELTA = {delta}
ACCEPTING = {accepting}


def blackbox(word):
    state = 0
    for letter in word:
        state = DELTA[state]["ab".index(letter)]
    return 1 if state in ACCEPTING else 0
"""


def _files(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((out / "trajectories").glob("*.json"))}


def _hand_suite(root: Path, codes: dict[int, str], n: int = 2) -> Path:
    """A DFA suite written by hand: box i gets ``codes[i]`` instead of its own code."""
    suite_dir = root / "hand"
    entries = []
    for i in range(n):
        target = sample_minimal_dfa(rng_for(5, "hand", i), 3)
        mode: CounterexampleMode = "short_random"
        costs = {}
        for name in BASELINES:
            result = learn(name, TargetOracle(target, mode))
            costs[name] = DfaBaselineCost(mq=result.mq, eq=result.eq)
        info = BoxInfo(
            id=f"dfa-hand-{i}",
            family="DFA",
            level="easy",
            task_intro="a DFA",
            input_schema="a word",
            output_schema="0 or 1",
            dfa=DfaBoxInfo(
                alphabet=["a", "b"],
                reference_cost=min(costs["lstar"].total, costs["ttt"].total),
            ),
        )
        facts = BoxFacts(
            rule_kind="states-3",
            log2_h=None,
            log2_y=1.0,
            t_info=None,
            dfa=DfaFacts(states=3, counterexamples=mode, baselines=costs),
        )
        table = target.to_table()
        code = codes.get(i) or BOX_CODE.format(delta=table["delta"], accepting=table["accepting"])
        hidden = HiddenInfo(rule_kind="states-3", params=table, description="", test_seed=0)
        provenance = Provenance(
            backend="test", tool_version=__version__, accepted=True, attempts=[]
        )
        entries.append(write_box(suite_dir, info, facts, code, hidden, provenance))
    suite = SuiteInfo(
        name="hand",
        seed=5,
        family="DFA",
        level="easy",
        tool_version=__version__,
        backend="test",
        boxes=[w.entry for w in entries],
    )
    write_suite(
        suite_dir,
        suite,
        SuiteOwnerInfo(seed=5, public=True, files={w.entry.id: w.files for w in entries}),
    )
    return suite_dir


def test_baselines_succeed_on_every_box_at_their_recorded_cost(
    dfa_suite: Path, tmp_path: Path
) -> None:
    result = evaluate_suite(dfa_suite, BASELINES, None, None, 0, tmp_path)
    _, boxes = load_suite_boxes(dfa_suite)
    assert result.failed == 0 and result.executed == 3 * len(boxes) == 24
    info = {box.info.id: box.facts.dfa for box in boxes}
    public = {box.info.id: box.info.dfa for box in boxes}
    for path in result.trajectories:
        traj = load_dfa_trajectory(path)
        facts = info[traj.box_id]
        assert facts is not None
        assert traj.success and traj.status == "completed" and traj.invalid_calls == 0
        # Same learner, same oracle, same word cache: exactly the cost box.json recorded.
        expected = facts.baselines[traj.agent]
        mqs = sum(c.tool == "mq" for c in traj.counted())
        assert (mqs, traj.queries_used - mqs, traj.cost) == (
            expected.mq,
            expected.eq,
            expected.total,
        )
        reference = public[traj.box_id]
        assert reference is not None and traj.reference_cost == reference.reference_cost
        assert traj.budget == 2 * reference.reference_cost >= expected.total
        assert traj.states == facts.states and traj.sandbox_layers
        assert DFA.from_table(traj.target).equivalent(traj.calls[-1].hypothesis_dfa())  # type: ignore[arg-type]

    summary = result.summary
    assert isinstance(summary, DfaSummary)
    assert [(g.agent, g.bucket) for g in summary.groups] == [
        (a, b) for a in sorted(BASELINES) for b in ("2-3", "4-5", "6-7", "8-9")
    ]
    for g in summary.groups:
        lo, hi = map(int, g.bucket.split("-"))
        mine = [f.baselines[g.agent] for f in info.values() if f and lo <= f.states <= hi]
        assert (g.boxes, g.success_rate, g.success_ci_low, g.success_ci_high) == (2, 1.0, 1.0, 1.0)
        assert g.mq_median == statistics.median(c.mq for c in mine)
        assert g.eq_median == statistics.median(c.eq for c in mine)
        assert g.calls_median == g.cost_median == statistics.median(c.total for c in mine)
        assert g.invalid_calls_mean == 0.0 and g.failed == 0
    for g in summary.groups:
        if g.agent == "ttt":
            assert g.cost_ratio_median is not None and g.cost_ratio_median >= 1.0
    on_disk = json.loads((tmp_path / "summary.json").read_text())
    assert on_disk == summary.model_dump(mode="json")
    assert (
        (tmp_path / "summary.csv")
        .read_text()
        .splitlines()[0]
        .startswith("suite,suite_seed,budget_factor,seed,repeats,bootstrap_seed,agent,bucket,")
    )

    # metrics.json: every episode's metrics, recomputable from its trajectory alone.
    metrics = json.loads((tmp_path / "metrics.json").read_text())
    assert set(metrics["episodes"]) == {p.name for p in result.trajectories}
    for path in result.trajectories:
        again = dfa_episode_metrics(load_dfa_trajectory(path))
        assert metrics["episodes"][path.name] == again.model_dump(mode="json")
        assert again.success and again.failure == "none" and again.best_similarity == 1.0
    rates = metrics["non_informative_rate_by_step"]
    assert sorted(rates) == sorted(BASELINES)
    assert all(
        0.0 <= rate <= 1.0 and reached >= 1 for r in rates.values() for _, rate, reached in r
    )
    # The learners never repeat a word or a language; but their hypotheses may contradict
    # an answer they hold (L*, KV and TTT only guarantee consistency with their table or
    # tree and the latest counterexample), so only the two "contradicts" kinds can show.
    for eps in metrics["episodes"].values():
        kinds = {k for k, count in eps["non_informative"].items() if count}
        assert kinds <= {"eq_contradicts_mq", "eq_contradicts_witness"}
    assert [row.agent for row in summary.metrics] == [g.agent for g in summary.groups]
    assert all(row.success_at["2.0"] == 1.0 for row in summary.metrics)


def test_dfa_runs_are_byte_identical_and_resume(dfa_suite: Path, tmp_path: Path) -> None:
    a = evaluate_suite(dfa_suite, ["ttt", "lstar"], None, None, 4, tmp_path / "a", repeats=2)
    evaluate_suite(dfa_suite, ["ttt", "lstar"], None, None, 4, tmp_path / "b", repeats=2)
    files = _files(tmp_path / "a")
    assert len(files) == 32 and files == _files(tmp_path / "b")
    for name in ("summary.json", "summary.csv"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    manifest = json.loads((tmp_path / "a" / "run.json").read_text())
    assert manifest["arguments"]["spec"] is None and manifest["arguments"]["feedback"] is None
    assert manifest["arguments"]["budget_factor"] == 2.0
    assert manifest["arguments"]["buckets"] == "2-3,4-5,6-7,8-9"

    summary = (tmp_path / "a" / "summary.json").read_bytes()
    a.trajectories[3].unlink()
    a.trajectories[7].write_text("{")
    seen: list[str] = []
    again = evaluate_suite(
        dfa_suite,
        ["ttt", "lstar"],
        None,
        None,
        4,
        tmp_path / "a",
        repeats=2,
        progress=lambda e: seen.append(e.action),
    )
    assert (again.executed, again.skipped) == (2, 30) and seen.count("ran") == 2
    assert _files(tmp_path / "a") == files
    assert (tmp_path / "a" / "summary.json").read_bytes() == summary
    # another budget factor is another run: refused in a's folder, fresh in its own
    with pytest.raises(UsageError, match=r"holds another run \(--budget-factor 2.0, not 1.5\)"):
        evaluate_suite(
            dfa_suite, ["ttt", "lstar"], None, None, 4, tmp_path / "a", repeats=2, budget_factor=1.5
        )
    assert _files(tmp_path / "a") == files
    other = evaluate_suite(
        dfa_suite, ["ttt", "lstar"], None, None, 4, tmp_path / "c", repeats=2, budget_factor=1.5
    )
    assert (other.executed, other.skipped) == (32, 0)
    assert all(load_dfa_trajectory(p).budget_factor == 1.5 for p in other.trajectories)


def test_box_faults_and_dead_boxes_through_the_sandbox(tmp_path: Path) -> None:
    broken = "def blackbox(word):\n    return (\n"
    suite = _hand_suite(tmp_path, {0: broken}, n=3)
    # Box 1 answers like its target but raises on long words or a double b.
    picky = (
        (suite / "boxes" / "dfa-hand-1" / "blackbox.py")
        .read_text()
        .replace(
            "    state = 0\n",
            "    if 'bb' in word or len(word) >= 3:\n"
            "        raise ValueError('no double b')\n"
            "    state = 0\n",
        )
    )
    suite = _hand_suite(tmp_path / "2", {0: broken, 1: picky}, n=3)
    result = evaluate_suite(suite, ["ttt"], None, None, 0, tmp_path / "out")
    dead, faulty, fine = (load_dfa_trajectory(p) for p in result.trajectories)
    assert dead.status == "failed" and dead.error and "SandboxCompileError" in dead.error
    assert (dead.calls, dead.queries_used, dead.budget > 0) == ([], 0, True)
    # The box raised on an MQ: the call was counted, the learner could not go on.
    assert faulty.status == "failed" and faulty.error is not None
    assert faulty.error.startswith("BoxFaultError: [black box error: exception: ")
    last = faulty.calls[-1]
    assert (last.valid, last.error, last.member) == (True, "exception", None)
    assert last.word is not None and last.step == faulty.queries_used
    assert "bb" in last.word or len(last.word) >= 3
    assert fine.status == "completed" and fine.success
    assert result.failed == 2
    group = result.summary.groups[0]
    assert (group.episodes, group.failed, group.boxes) == (3, 2, 1)

    # A text agent sees the fault's own text; EQs never touch the box code.
    from sandbox import SandboxWorker

    _, boxes = load_suite_boxes(suite)
    box = boxes[1]

    class Script:
        def __init__(self) -> None:
            self.shown: list[str] = []

        def play(self, env: DfaEnvironment) -> None:
            for word in ("ab", "abba", "b"):
                self.shown.append(env.call(json.dumps({"tool": "mq", "word": word})))
            self.shown.append(env.call('{"tool": "eq", "dfa": {}}'))

    agent = Script()
    with SandboxWorker(box.code) as worker:
        traj = run_dfa_episode(box, "script", agent, worker.call, suite="hand")
    target = DFA.from_table(dict(box.hidden.params))
    label = {True: "1 (in the language)", False: "0 (not in the language)"}
    assert agent.shown[0] == (
        f'Membership query "ab": {label[target.accepts("ab")]}. '
        f"{traj.budget - 1} of {traj.budget} calls left."
    )
    assert agent.shown[1] == "[black box error: exception: ValueError: no double b]"
    assert agent.shown[2].startswith(f'Membership query "b": {label[target.accepts("b")]}.')
    assert agent.shown[3].startswith("Invalid call (free, not counted): invalid DFA:")
    assert [c.error for c in traj.calls] == [None, "exception", None, "invalid_call"]
    assert traj.queries_used == 3 and traj.status == "completed"


def test_dfa_summary_buckets(dfa_suite: Path, tmp_path: Path) -> None:
    result = evaluate_suite(dfa_suite, ["ttt"], None, None, 0, tmp_path, buckets=[(2, 5), (6, 9)])
    assert isinstance(result.summary, DfaSummary)
    assert [g.bucket for g in result.summary.groups] == ["2-5", "6-9"]
    assert [g.boxes for g in result.summary.groups] == [4, 4]
    trajs = [load_dfa_trajectory(p) for p in result.trajectories]
    # States outside every bucket get a bucket of their own, never dropped.
    narrow = summarise_dfa(trajs, suite="s", seed=0, repeats=1, budget_factor=2.0, buckets=[(2, 3)])
    assert [g.bucket for g in narrow.groups] == ["2-3", "4", "5", "6", "7", "8", "9"]
    assert sum(g.boxes for g in narrow.groups) == 8
    assert narrow.buckets == ["2-3", "4", "5", "6", "7", "8", "9"]
    rows = {r.box_id: r for r in narrow.boxes}
    assert all(r.success_rate == 1.0 and r.cost == r.calls for r in rows.values())


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2-3,4-5,6-7,8-9", ((2, 3), (4, 5), (6, 7), (8, 9))),
        ("5", ((5, 5),)),
        (" 6-9 , 2-5", ((2, 5), (6, 9))),
    ],
)
def test_parse_buckets(text: str, expected: tuple[tuple[int, int], ...]) -> None:
    assert parse_buckets(text) == expected


@pytest.mark.parametrize("text", ["", "3-2", "a-b", "2-4,4-5", "0-1", "2-3,", "1-2-3"])
def test_parse_buckets_refuses(text: str) -> None:
    with pytest.raises(UsageError):
        parse_buckets(text)


# -- the CLI -------------------------------------------------------------------------


def _one_line_error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    code = main(argv)
    captured = capsys.readouterr()
    assert code == 2, captured
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("oracle-eval: error: "), captured.err
    return lines[0]


def test_cli_runs_a_dfa_suite_without_a_spec(
    dfa_suite: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["--suite", str(dfa_suite), "--agent", "ttt", "--budget-factor", "1.25"]) == 0
    out = capsys.readouterr().out
    for needle in ("ttt", "2-3", "8-9", "success", "x1.25", "8 episode(s): 8 run"):
        assert needle in out
    suite_sha = sha256_hex((dfa_suite / "suite.json").read_bytes())
    expected = tmp_path / default_run_root(dfa_suite, load_suite(dfa_suite), suite_sha)
    expected = expected / "dfa-x1.25-seed0"
    assert len(list((expected / "trajectories").glob("*.json"))) == 8
    assert (expected / "summary.csv").exists()
    assert main(["--suite", str(dfa_suite), "--agent", "ttt", "--budget-factor", "1.25"]) == 0
    assert "8 already done" in capsys.readouterr().out


def test_cli_errors_are_one_line_exit_2(
    dfa_suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], suite_builder: Any
) -> None:
    eri = suite_builder(tmp_path, n=1, seed=1, name="eri-one")
    dfa = ["--suite", str(dfa_suite), "--out", str(tmp_path / "o")]
    cases = [
        (
            [*dfa, "--agent", "adaptive"],
            "unknown DFA agent 'adaptive'; available: fixed, kv, lstar, random, ttt",
        ),
        (["10@1", *dfa], "is a DFA suite: it takes no SPEC"),
        ([*dfa, "--feedback", "deferred"], "--feedback does not apply"),
        ([*dfa, "--budget-factor", "0"], "invalid budget factor 0.0: must be > 0"),
        ([*dfa, "--budget-factor", "nan"], "--budget-factor: expected a finite number"),
        ([*dfa, "--budget-factor", "x"], "--budget-factor"),
        ([*dfa, "--buckets", "3-2"], "invalid bucket"),
        (
            ["10@1", "--suite", str(eri), "--agent", "ttt"],
            "unknown agent 'ttt'; available: adaptive",
        ),
        (["--suite", str(eri)], "required: SPEC"),
        (["10@1", "--suite", str(eri), "--budget-factor", "2"], "not apply (for DFA suites only)"),
        (["10@1", "--suite", str(eri), "--buckets", "2-3"], "not apply (for DFA suites only)"),
        (["10@1", "--suite", str(eri), "--similarity-len", "9"], "not apply (for DFA suites only)"),
        ([*dfa, "--similarity-len", "-1"], "invalid --similarity-len -1"),
        ([*dfa, "--similarity-len", "20000"], "invalid --similarity-len 20000"),
    ]
    for argv, needle in cases:
        line = _one_line_error(capsys, argv)
        assert needle in line, (argv, line)
    assert not (tmp_path / "o").exists()
    with pytest.raises(UsageError, match="is a DFA suite: it takes no SPEC"):
        from evaluator.spec import TurnShot

        evaluate_suite(dfa_suite, ["ttt"], TurnShot(2, 1), None, 0, tmp_path / "p")
    with pytest.raises(UsageError, match="unknown DFA agent 'adaptive'"):
        evaluate_suite(dfa_suite, ["adaptive"], None, None, 0, tmp_path / "p")


def test_byte_identical_across_processes(dfa_suite: Path, tmp_path: Path) -> None:
    """Different hash seeds (fresh interpreters) still give byte-identical DFA runs."""
    import os
    import subprocess
    import sys

    script = (
        "import sys; from pathlib import Path; from evaluator import evaluate_suite; "
        "evaluate_suite(Path(sys.argv[1]), ['lstar', 'kv', 'ttt'], None, None, 1, "
        "Path(sys.argv[2]))"
    )
    root = Path(__file__).resolve().parents[2]
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(root)}
        subprocess.run(
            [sys.executable, "-c", script, str(dfa_suite), str(tmp_path / hash_seed)],
            check=True,
            env=env,
            cwd=root,
            timeout=120,
        )
    assert len(_files(tmp_path / "1")) == 24
    assert _files(tmp_path / "1") == _files(tmp_path / "2")
    for name in ("summary.json", "summary.csv"):
        assert (tmp_path / "1" / name).read_bytes() == (tmp_path / "2" / name).read_bytes()


def test_similarity_len_reaches_the_metrics(dfa_suite: Path, tmp_path: Path) -> None:
    result = evaluate_suite(dfa_suite, ["lstar"], None, None, 0, tmp_path, similarity_len=3)
    summary = result.summary
    assert isinstance(summary, DfaSummary) and summary.similarity_len == 3
    manifest = json.loads((tmp_path / "run.json").read_text())
    assert manifest["arguments"]["similarity_len"] == 3
    metrics = json.loads((tmp_path / "metrics.json").read_text())["episodes"]
    for path in result.trajectories:
        traj = load_dfa_trajectory(path)
        assert metrics[path.name] == dfa_episode_metrics(traj, similarity_len=3).model_dump(
            mode="json"
        )
        # With K = 3 there are only 15 words: the curve's values are multiples of 1/15.
        for _, value in metrics[path.name]["similarity_curve"]:
            assert round(value * 15, 9) == round(value * 15)
