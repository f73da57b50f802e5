"""A person playing a puzzle episode in the terminal (``oracle-play``).

Each line is a probe, or ``! ANSWER`` to answer early (which ends the instance's
probing); when asked for the answer, the line is the answer. The free ``:`` commands
work throughout.
"""

from __future__ import annotations

from evaluator.human import COMMON_HELP, LineReader, PlayIO
from evaluator.kinds.puzzle.protocol import Move, PuzzleBriefing

__all__ = ["HumanPuzzleAgent"]


class HumanPuzzleAgent(LineReader):
    """A person playing puzzle instances through :class:`PlayIO`."""

    def __init__(self, io: PlayIO) -> None:
        super().__init__(io)
        self.lines: list[str] = []

    def help_text(self) -> str:
        return (
            "Probing: type one probe per turn, in the format the rules give; an invalid probe "
            "costs its turn.\n  ! ANSWER   answer now (ends the probing of this instance)\n"
            "Answering: type the answer.\n"
            f"{COMMON_HELP}"
        )

    def history_lines(self) -> list[str]:
        return list(self.lines)

    # -- the PuzzleAgent protocol ---------------------------------------------
    def start(self, briefing: PuzzleBriefing) -> None:
        self.intro = briefing.intro
        self.io.say(briefing.intro)
        self.io.say("")
        self.io.say("Type :help for the commands; '! ANSWER' answers before the probes run out.")

    def begin_instance(self, index: int, message: str) -> None:
        self.lines.append(f"-- {message}")
        self.io.say("")
        self.io.say(message)

    def move(self, banner: str) -> Move:
        self.io.say("")
        self.io.say(banner)
        text = self.read("probe> ")
        if text.startswith("!"):
            answer = text[1:].strip()
            self.lines.append(f"answer {answer}")
            return Move("answer", answer)
        return Move("probe", text)

    def observe(self, turn: int, probe_text: str, feedback: str) -> None:
        line = f"Turn {turn}: {probe_text} -> {feedback}"
        self.lines.append(line)
        self.io.say(f"  {probe_text} -> {feedback}")

    def answer(self, prompt: str, attempt: int) -> str:
        self.io.say("")
        self.io.say(prompt)
        text = self.read("answer> ")
        self.lines.append(f"answer {text}")
        return text

    def verdict(self, correct: bool, message: str) -> None:
        self.lines.append(message)
        self.io.say(message)

    def notes(self) -> list[str]:
        return []
