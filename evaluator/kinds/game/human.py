"""A person playing a game episode in the terminal (``oracle-play``): one action per
round; the free ``:`` commands work throughout."""

from __future__ import annotations

from collections.abc import Mapping

from evaluator.human import COMMON_HELP, LineReader, PlayIO
from evaluator.kinds.game.protocol import GameBriefing, Phase, RoundResult

__all__ = ["HumanGameAgent"]


class HumanGameAgent(LineReader):
    """A person playing game settings through :class:`PlayIO`."""

    def __init__(self, io: PlayIO) -> None:
        super().__init__(io)
        self.lines: list[str] = []

    def help_text(self) -> str:
        return (
            "Each round: type one of the legal actions shown (an invalid reply plays the "
            f"first legal action).\n{COMMON_HELP}"
        )

    def history_lines(self) -> list[str]:
        return list(self.lines)

    def start(self, briefing: GameBriefing) -> None:
        self.intro = briefing.intro
        self.io.say(briefing.intro)
        self.io.say("")
        self.io.say("Type :help for the commands.")

    def begin_setting(self, index: int, settings: Mapping[str, int], message: str) -> None:
        self.lines.append(f"-- {message}")
        self.io.say("")
        self.io.say(message)

    def begin_game(self, phase: Phase, number: int, message: str) -> None:
        self.lines.append(message)
        self.io.say(message)

    def act(self, banner: str, legal: tuple[str, ...]) -> str:
        self.io.say(f"{banner} legal: {', '.join(legal)}")
        return self.read("action> ")

    def observe(self, result: RoundResult) -> None:
        line = f"Round {result.round}: you {result.action}, opponent {result.opponent}, "
        line += f"{result.points} point(s)"
        if result.note is not None:
            line = f"{result.note}. {line}"
        self.lines.append(line)
        self.io.say(f"  {line}")

    def end_game(self, score: int, message: str) -> None:
        self.lines.append(message)
        self.io.say(message)

    def notes(self) -> list[str]:
        return []
