"""turn@shot parsing, and the CLI's one-line usage errors (exit code 2)."""

from __future__ import annotations

import pytest

from evaluator.cli import main
from evaluator.spec import TurnShot, parse_feedback, parse_spec
from oracle_bench.errors import UsageError

MALFORMED = ["20@0", "x@2", "20", "-1@1", "0@1", "", "   ", "@", "20@", "@2", "1.5@1", "2@2@2"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [("20@2", TurnShot(20, 2)), ("10@1", TurnShot(10, 1)), (" 3 @ 4 ", TurnShot(3, 4))],
)
def test_parse_spec(text: str, expected: TurnShot) -> None:
    assert parse_spec(text) == expected
    assert str(expected) == f"{expected.turns}@{expected.shots}"


@pytest.mark.parametrize("text", MALFORMED)
def test_malformed_spec_is_a_one_line_usage_error(text: str) -> None:
    with pytest.raises(UsageError) as info:
        parse_spec(text)
    message = str(info.value)
    assert "\n" not in message
    assert "TURNS@SHOTS" in message


def test_shots_message_names_the_problem() -> None:
    with pytest.raises(UsageError, match="shots must be >= 1"):
        parse_spec("20@0")
    with pytest.raises(UsageError, match="turns must be >= 1"):
        parse_spec("-1@1")


def test_feedback_modes() -> None:
    assert parse_feedback("instant") == "instant"
    assert parse_feedback("deferred") == "deferred"
    with pytest.raises(UsageError, match="feedback"):
        parse_feedback("later")


def _one_line_error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    code = main(argv)
    captured = capsys.readouterr()
    assert code == 2, captured
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("oracle-eval: error: ")
    assert "Traceback" not in captured.err
    return lines[0]


@pytest.mark.parametrize("text", MALFORMED)
def test_cli_malformed_spec(capsys: pytest.CaptureFixture[str], text: str) -> None:
    line = _one_line_error(capsys, [text])
    assert "invalid spec" in line


def test_cli_reference_message(capsys: pytest.CaptureFixture[str]) -> None:
    line = _one_line_error(capsys, ["20@0"])
    assert line == (
        "oracle-eval: error: invalid spec '20@0': shots must be >= 1 "
        "(expected TURNS@SHOTS, e.g. 20@2)"
    )


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["10@1", "--agent", "nobody"], "unknown agent 'nobody'"),
        (["10@1", "--feedback", "later"], "invalid feedback mode 'later'"),
        (["10@1", "--repeats", "0"], "--repeats"),
        (["10@1", "--seed", "x"], "--seed"),
        (["10@1", "--bogus"], "unrecognized arguments"),
        ([], "SPEC"),
    ],
)
def test_cli_bad_arguments(
    capsys: pytest.CaptureFixture[str], argv: list[str], needle: str
) -> None:
    line = _one_line_error(capsys, argv)
    assert needle in line


def test_cli_help_has_examples(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "Examples:" in out and "20@2" in out and "deferred" in out
