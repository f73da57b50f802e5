"""oracle-play: scripted player lines through the real protocol, sandbox and trajectory files."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from blackboxes.automata.dfa import DFA
from blackboxes.families import Family, Rule, get_family
from blackboxes.store import Box, load_suite, load_suite_boxes
from evaluator import play
from evaluator._run_folder import default_run_root
from evaluator.kinds.dfa.trajectory import load_dfa_trajectory
from evaluator.kinds.turns.trajectory import load_trajectory
from evaluator.play import QUIT_ERROR, PlayIO, main
from oracle_bench.jsonio import sha256_hex
from oracle_bench.rng import rng_for

ERI_BOX = "ERI-easy-0000"
NEVER = "QQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQ"
"""An answer no ERI box gives (40 letters: ERI plaintexts have at most 32)."""
PLAY = [sys.executable, "-c", "from evaluator.play import main; raise SystemExit(main())"]


def _io(lines: list[str]) -> tuple[PlayIO, io.StringIO]:
    out = io.StringIO()
    return PlayIO.from_streams(io.StringIO("".join(f"{line}\n" for line in lines)), out), out


def _box(suite: Path, box_id: str) -> Box:
    _, boxes = load_suite_boxes(suite)
    return next(b for b in boxes if b.info.id == box_id)


def _held_out(family: Family, box: Box, rule: Rule, queried: list[str]) -> list[tuple[str, str]]:
    """(input text, rendered expected output) of the K items, exactly as the protocol draws them."""
    exclude = [family.parse_query(q) for q in queried]
    xs = family.test_inputs(rng_for(box.hidden.test_seed, "test"), family.test_items, exclude)
    return [(family.format_query(x), family.render_output(rule(x))) for x in xs]


def _one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("oracle-play: error: ")
    return lines[0]


def test_a_full_turn_episode_with_help_history_an_invalid_query_and_answers(
    eri_easy_suite: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    reference: Callable[[Family, Box], Rule],
) -> None:
    family = get_family("ERI")
    box = _box(eri_easy_suite, ERI_BOX)
    rule = reference(family, box)
    items = _held_out(family, box, rule, ["hello", "world"])
    assert all(not family.check_answer(rule(family.parse_query(x)), NEVER) for x, _ in items)
    lines = [
        ":help",
        ":history",
        "hello",  # turn 1
        "",  # ignored
        "!!!",  # turn 2: invalid, costs the turn (ORACLE)
        ":history",
        ":nonsense",
        "world",  # turn 3
        items[0][1].lower(),  # right (answers are normalised)
        ":history",
        *[NEVER] * (len(items) - 1),
    ]
    play_io, out = _io(lines)
    out_dir = tmp_path / "play"
    argv = ["3@1", "--suite", str(eri_easy_suite), "--box", ERI_BOX, "--name", "tester"]
    code = main([*argv, "--out", str(out_dir)], io=play_io)
    assert code == 0
    path = out_dir / "trajectories" / f"{ERI_BOX}__human-tester__r0.json"
    traj = load_trajectory(path)
    assert (traj.agent, traj.status, traj.error, traj.repetition) == (
        "human:tester",
        "completed",
        None,
        0,
    )
    assert (traj.spec.turns, traj.spec.shots, traj.feedback) == (3, 1, "instant")
    assert [(t.index, t.text, t.valid, t.error_kind) for t in traj.turns] == [
        (1, "hello", True, None),
        (2, "!!!", False, "invalid_query"),
        (3, "world", True, None),
    ]
    assert (traj.queries_used, traj.invalid_turns) == (2, 1)
    assert [t.output for t in traj.turns] == [rule("HELLO"), None, rule("WORLD")]
    assert [item.input_text for item in traj.items] == [x for x, _ in items]
    assert [item.correct for item in traj.items] == [True] + [False] * (len(items) - 1)
    assert traj.accuracy == 1 / len(items) == 0.125
    assert traj.sandbox_layers and traj.intro.startswith(box.info.task_intro.rstrip())

    shown = out.getvalue()
    assert "<Turn 1 of 3; 2 remaining>" in shown and "<Turn 3 of 3; 0 remaining>" in shown
    assert f"Query format: {family.input_schema}" in shown
    assert shown.count("Nothing yet.") == 1  # the first :history
    hello = family.render_output(rule("HELLO"))
    assert f"Turn 1: hello -> {hello}\nTurn 2: !!! -> empty plaintext" in shown
    assert f"Turn 3: world -> {family.render_output(rule('WORLD'))}" in shown
    assert f"Question 1 ({items[0][0]}): you answered {items[0][1].lower()!r} (right)" in shown
    assert "Unknown command ':nonsense'" in shown
    assert shown.count("Your answer is correct.") == 1
    assert shown.count("Your answer is wrong.") == len(items) - 1
    # Right/wrong only: no rule kind, no expected output of an item answered wrong.
    assert box.facts.rule_kind not in shown and box.hidden.description not in shown
    for _, expected in items[1:]:
        assert expected not in shown
    report = capsys.readouterr().out
    assert "Accuracy: 1/8 = 0.125 (2 queries answered, 1 invalid)." in report
    assert str(path) in report.replace("\n", "")


def test_deferred_feedback_reveals_the_answers_after_the_last_turn(
    eri_easy_suite: Path, tmp_path: Path, reference: Callable[[Family, Box], Rule]
) -> None:
    family = get_family("ERI")
    box = _box(eri_easy_suite, ERI_BOX)
    rule = reference(family, box)
    items = _held_out(family, box, rule, ["ab", "cd"])
    play_io, out = _io(["ab", ":history", "cd", *[e for _, e in items]])
    argv = ["2@1", "--suite", str(eri_easy_suite), "--box", ERI_BOX, "--name", "tester"]
    assert main([*argv, "--feedback", "deferred", "--out", str(tmp_path)], io=play_io) == 0
    traj = load_trajectory(tmp_path / "trajectories" / f"{ERI_BOX}__human-tester__r0.json")
    assert (traj.feedback, traj.accuracy, traj.queries_used) == ("deferred", 1.0, 2)
    shown = out.getvalue()
    assert "Turn 1: ab -> (answer pending)" in shown
    ab = family.render_output(rule("AB"))
    # Both answers arrive together, after the second query.
    second = shown.index("<Turn 2 of 2; 0 remaining>")
    assert shown.index(f"  ab -> {ab}") > second


def test_quit_and_end_of_input_record_a_failed_episode_and_replays_take_the_next_repetition(
    eri_easy_suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["3@1", "--suite", str(eri_easy_suite), "--box", ERI_BOX, "--name", "tester"]
    argv += ["--out", str(tmp_path)]
    play_io, _ = _io(["hello", ":quit", "never read"])
    assert main(argv, io=play_io) == 0
    play_io, _ = _io(["hello", "world"])  # then end of input
    assert main(argv, io=play_io) == 0
    first, second = (
        load_trajectory(tmp_path / "trajectories" / f"{ERI_BOX}__human-tester__r{k}.json")
        for k in (0, 1)
    )
    assert (first.status, first.error, first.accuracy, first.repetition) == (
        "failed",
        QUIT_ERROR,
        None,
        0,
    )
    assert [t.text for t in first.turns] == ["hello"] and first.items == []
    assert (second.status, second.error, second.repetition) == ("failed", QUIT_ERROR, 1)
    assert [t.text for t in second.turns] == ["hello", "world"]
    assert capsys.readouterr().out.count("You quit: the episode is recorded as failed") == 2


def _dfa_box(dfa_suite: Path) -> tuple[Box, DFA]:
    _, boxes = load_suite_boxes(dfa_suite)
    box = next(b for b in boxes if b.facts.dfa is not None and b.facts.dfa.states >= 3)
    return box, DFA.from_table(dict(box.hidden.params))  # the target: tests only


def _reject_all() -> dict[str, object]:
    return {
        "states": ["q0"],
        "alphabet": ["a", "b"],
        "start": "q0",
        "accepting": [],
        "transitions": [["q0", "a", "q0"], ["q0", "b", "q0"]],
    }


def test_a_dfa_episode_with_shorthands_a_wrong_then_a_right_equivalence_query(
    dfa_suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    box, target = _dfa_box(dfa_suite)
    wrong = _reject_all()
    lines = [
        ":help",
        "? ab",
        "?",
        "? xz",  # foreign letters: invalid, free
        "hello",  # not a call: answered locally, not recorded
        ":history",
        f"eq {json.dumps(wrong)}",
        f"eq {json.dumps(target.to_json())}",
    ]
    play_io, out = _io(lines)
    argv = ["--suite", str(dfa_suite), "--box", box.info.id, "--name", "tester"]
    assert main([*argv, "--out", str(tmp_path)], io=play_io) == 0
    traj = load_dfa_trajectory(tmp_path / "trajectories" / f"{box.info.id}__human-tester__r0.json")
    assert (traj.agent, traj.status, traj.success, traj.cost) == (
        "human:tester",
        "completed",
        True,
        4,
    )
    assert (traj.queries_used, traj.invalid_calls, traj.budget_factor) == (4, 1, 2.0)
    assert [(c.tool, c.valid, c.word, c.member) for c in traj.calls[:3]] == [
        ("mq", True, "ab", target.accepts("ab")),
        ("mq", True, "", target.accepts("")),
        ("mq", False, None, None),
    ]
    eq_wrong, eq_right = traj.calls[3:]
    assert (eq_wrong.tool, eq_wrong.accepted, eq_right.accepted) == ("eq", False, True)
    assert eq_wrong.counterexample is not None and target.accepts(eq_wrong.counterexample)
    assert json.loads(eq_right.text) == {"tool": "equivalence_query", "dfa": target.to_json()}

    shown = out.getvalue()
    budget = traj.budget
    assert f"[{budget} of {budget} calls left] > " in shown
    assert f"{budget - 1} of {budget} calls left." in shown  # after the first call
    assert "Invalid call (free, not counted): letter(s) 'x', 'z' not in the alphabet" in shown
    assert "Not a call: 'hello'" in shown and "? WORD" in shown
    assert '1. ? "ab" -> Membership query "ab"' in shown and "3. (free) Invalid call" in shown
    assert "The episode is over: an equivalence query was accepted." in shown
    assert box.facts.rule_kind not in shown
    report = capsys.readouterr().out
    assert f"Success: your DFA was accepted; cost 4 of {budget} calls." in report


def test_dfa_file_hypotheses_raw_calls_and_a_spent_budget(
    dfa_suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    box, target = _dfa_box(dfa_suite)
    (tmp_path / "target.json").write_text(json.dumps(target.to_json()))
    argv = ["--suite", str(dfa_suite), "--box", box.info.id, "--name", "tester"]
    argv += ["--out", str(tmp_path / "out"), "--budget-factor", "0.01"]  # a budget of 1 call
    play_io, out = _io(
        [f"eq @{tmp_path / 'missing.json'}", f"eq @{tmp_path / 'target.json'}", "? a"]
    )
    assert main(argv, io=play_io) == 0
    play_io, out2 = _io(['{"tool": "membership_query", "word": "ba"}', "? a"])
    assert main(argv, io=play_io) == 0
    folder = tmp_path / "out" / "trajectories"
    won = load_dfa_trajectory(folder / f"{box.info.id}__human-tester__r0.json")
    spent = load_dfa_trajectory(folder / f"{box.info.id}__human-tester__r1.json")
    assert (won.budget, won.success, won.cost, len(won.calls), won.status) == (
        1,
        True,
        1,
        1,
        "completed",
    )
    assert "(nothing was sent)" in out.getvalue()
    assert (spent.success, spent.cost, spent.queries_used, spent.status) == (
        False,
        None,
        1,
        "completed",
    )
    assert spent.calls[0].word == "ba" and spent.calls[0].member == target.accepts("ba")
    assert "The budget is spent; the episode is over." in out2.getvalue()
    report = capsys.readouterr().out
    assert "Success: your DFA was accepted; cost 1 of 1 calls." in report
    assert "No success: 1 of 1 calls used, 0 invalid (free)." in report


def test_quitting_a_dfa_episode_keeps_its_calls_and_records_the_quit(
    dfa_suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    box, target = _dfa_box(dfa_suite)
    play_io, _ = _io(["? b", ":quit", "? a"])
    argv = ["--suite", str(dfa_suite), "--box", box.info.id, "--name", "tester"]
    assert main([*argv, "--out", str(tmp_path)], io=play_io) == 0
    traj = load_dfa_trajectory(tmp_path / "trajectories" / f"{box.info.id}__human-tester__r0.json")
    assert (traj.status, traj.error, traj.success, traj.cost) == ("failed", QUIT_ERROR, False, None)
    assert [(c.word, c.member) for c in traj.calls] == [("b", target.accepts("b"))]
    assert "You quit: the episode is recorded as failed" in capsys.readouterr().out


def test_without_box_the_boxes_are_listed_without_their_rule_kind(
    eri_easy_suite: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--suite", str(eri_easy_suite)]) == 0
    out = capsys.readouterr().out
    _, boxes = load_suite_boxes(eri_easy_suite)
    for box in boxes:
        assert f"{box.info.id} │ ERI    │ easy" in out
        assert box.facts.rule_kind not in out
    assert "Pick one with --box ID" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["3@x", "--box", ERI_BOX], "invalid spec '3@x'"),
        (["-3@1", "--box", ERI_BOX], "invalid spec '-3@1'"),
        (["--box", ERI_BOX], "required: SPEC"),
        (["3@1", "--box", "nope"], "unknown box 'nope' in suite"),
        (["3@1", "--box", ERI_BOX, "--feedback", "later"], "invalid feedback mode 'later'"),
        (
            ["3@1", "--box", ERI_BOX, "--budget-factor", "2"],
            "--budget-factor does not apply (for DFA suites only)",
        ),
        (["3@1", "--box", ERI_BOX, "--name", "a b"], "invalid --name 'a b'"),
        (["3@1", "--box", ERI_BOX, "--bogus"], "unrecognized arguments: --bogus"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(
    eri_easy_suite: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    play_io, out = _io(["hello"])
    assert main([*argv, "--suite", str(eri_easy_suite)], io=play_io) == 2
    line = _one_line(capsys.readouterr().err)
    assert message in line
    if "unknown box" in message:
        assert f"run 'oracle-play --suite {eri_easy_suite}' to list its boxes" in line
    assert out.getvalue() == ""  # nothing was played


def test_dfa_suites_refuse_a_spec_and_feedback_and_a_missing_suite_is_one_line(
    dfa_suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    box, _ = _dfa_box(dfa_suite)
    for extra, message in (
        (["3@1"], "is a DFA suite: it takes no SPEC"),
        (["--feedback", "instant"], "--feedback does not apply"),
    ):
        assert main([*extra, "--suite", str(dfa_suite), "--box", box.info.id]) == 2
        assert message in _one_line(capsys.readouterr().err)
    assert main(["--box", box.info.id]) == 2
    assert "--suite" in _one_line(capsys.readouterr().err)
    assert main(["--suite", str(tmp_path / "none")]) == 2
    assert "none does not exist" in _one_line(capsys.readouterr().err)
    assert not (tmp_path / "runs").exists()


def test_the_cli_in_a_subprocess_with_piped_stdin(eri_easy_suite: Path, tmp_path: Path) -> None:
    lines = ["hello", ":history", "world", *["x"] * 8]
    proc = subprocess.run(
        [*PLAY, "2@1", "--suite", str(eri_easy_suite), "--box", ERI_BOX, "--name", "pipe"],
        input="".join(f"{line}\n" for line in lines),
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
        check=False,
    )
    assert (proc.returncode, proc.stderr) == (0, "")
    suite_sha = sha256_hex((eri_easy_suite / "suite.json").read_bytes())
    root = default_run_root(eri_easy_suite, load_suite(eri_easy_suite), suite_sha)
    assert root.name.startswith("ERI-easy-seed11-n6-")
    rel = root / "play-2at1-instant-pipe" / "trajectories"
    path = rel / f"{ERI_BOX}__human-pipe__r0.json"
    assert "Accuracy: 0/8 = 0.000 (2 queries answered, 0 invalid)." in proc.stdout
    assert f"Trajectory: {path}" in proc.stdout
    assert "<Turn 2 of 2; 0 remaining>" in proc.stdout and "Turn 1: hello -> " in proc.stdout
    traj = load_trajectory(tmp_path / path)
    assert (traj.agent, traj.accuracy, traj.status) == ("human:pipe", 0.0, "completed")
    assert [t.text for t in traj.turns] == ["hello", "world"]


def test_a_bad_out_fails_before_anything_is_played(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(NotADirectoryError):
        play._next_repetition(blocker / "out", "box", "human:a")


def test_concurrent_sessions_reserve_different_repetitions(tmp_path: Path) -> None:
    first = play._next_repetition(tmp_path, "box", "human:a")
    second = play._next_repetition(tmp_path, "box", "human:a")
    assert (first[1], second[1]) == (0, 1)
    assert play._reservation(first[0]).exists() and not first[0].exists()


def test_version_and_a_file_as_suite(
    tmp_path: Path, eri_easy_suite: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip().endswith("(oracle-bench)")
    assert main(["--suite", str(eri_easy_suite / "suite.json")]) == 2
    assert "did you mean its folder" in _one_line(capsys.readouterr().err)
