"""A person playing a turn@shot episode in the terminal (``oracle-play``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from evaluator.human import COMMON_HELP, LineReader, PlayIO
from evaluator.kinds.turns.agents import Briefing, Observation, Question
from evaluator.spec import FeedbackMode

__all__ = ["HumanAgent"]


@dataclass
class _Turn:
    text: str
    response: str | None = None


class HumanAgent(LineReader):
    """A person playing a turn@shot episode through :class:`PlayIO`.

    ``input_schema``/``output_schema`` are the box's one-line formats (box.json), shown
    by ``:help``; nothing else about the box is given to the player.
    """

    def __init__(self, io: PlayIO, input_schema: str, output_schema: str) -> None:
        super().__init__(io)
        self.input_schema = input_schema
        self.output_schema = output_schema
        self.feedback_mode: FeedbackMode = "instant"
        self.turns: list[_Turn] = []
        self.answers: list[tuple[str, str, bool | None]] = []
        """(question input, answer, correct) of the evaluation phase."""
        self.evaluating = False

    def help_text(self) -> str:
        return (
            f"Exploration: type one query per turn.\n  Query format: {self.input_schema}\n"
            f"Evaluation: type the box's output for the input shown.\n"
            f"  Answer format: {self.output_schema}\n"
            "Lines that start with ':' are commands; an invalid query costs its turn.\n"
            f"{COMMON_HELP}"
        )

    def history_lines(self) -> list[str]:
        lines = []
        for i, turn in enumerate(self.turns, start=1):
            answer = "(answer pending)" if turn.response is None else turn.response
            lines.append(f"Turn {i}: {turn.text} -> {answer}")
        for text, answer, correct in self.answers:
            verdict = "?" if correct is None else "right" if correct else "wrong"
            lines.append(f"Question {text}: you answered {answer!r} ({verdict})")
        return lines

    # -- the Agent protocol ----------------------------------------------------
    def start(self, briefing: Briefing) -> None:
        self.intro = briefing.intro
        self.feedback_mode = briefing.feedback
        self.io.say(briefing.intro)
        self.io.say("")
        if briefing.feedback == "deferred":
            self.io.say(
                f"Deferred feedback: the box answers your {briefing.turns} queries together, "
                "after the last one."
            )
        self.io.say("Type :help for the input format and the commands.")

    def query(self, banner: str) -> str:
        self.io.say("")
        self.io.say(banner)
        text = self.read("query> ")
        self.turns.append(_Turn(text))
        if self.feedback_mode == "deferred":
            self.io.say("(recorded; the answers come after the last turn)")
        return text

    def observe(self, observation: Observation) -> None:
        pending = [t for t in self.turns if t.response is None]
        if pending:
            pending[0].response = observation.response
        self.io.say(f"  {observation.query_text} -> {observation.response}")

    def begin_evaluation(self, message: str) -> None:
        self.evaluating = True
        self.io.say("")
        self.io.say(message)

    def answer(self, question: Question) -> str:
        self.io.say("")
        self.io.say(question.prompt)
        if question.program:
            return self._program(question)
        text = self.read("answer> ")
        self.answers.append((f"{question.item} ({question.input_text})", text, None))
        return text

    def _program(self, question: Question) -> str:
        """A program typed line by line and ended by a line ``END``, or read from a file
        named as ``@PATH``."""
        self.io.say("Type the program and end it with a line END, or give a file as @PATH.")
        first = self.read("program> ")
        if first.startswith("@"):
            path = Path(first[1:].strip()).expanduser()
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                self.io.say(f"cannot read {path}: {exc}")
                text = ""
        else:
            lines = [first]
            while lines[-1] != "END":
                lines.append(self.io.ask("... ").rstrip())
            text = "\n".join(lines[:-1]) + "\n"
        self.answers.append((f"submission {question.attempt + 1}", text[:60], None))
        return f"```python\n{text}```"

    def feedback(self, correct: bool, message: str) -> None:
        if self.answers:
            item, text, _ = self.answers[-1]
            self.answers[-1] = (item, text, correct)
        self.io.say(message)

    def notes(self) -> list[str]:
        return []
