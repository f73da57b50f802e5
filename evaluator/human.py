"""A person as an agent: the terminal I/O of ``oracle-play`` and the line reader with its
free ``:`` commands, shared by every kind's human agent (``evaluator.kinds.<kind>.human``).

All terminal I/O goes through :class:`PlayIO`, so tests drive a whole episode with
scripted lines.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

__all__ = ["COMMON_HELP", "QUIT_ERROR", "LineReader", "PlayIO", "PlayerQuit"]

QUIT_ERROR = "the player quit"
"""``error`` of the trajectory of an episode the player ended with ``:quit`` or end of input."""


class PlayerQuit(Exception):
    """The player typed ``:quit`` or closed the input; the episode ends as failed."""

    def __init__(self) -> None:
        super().__init__(QUIT_ERROR)


@dataclass(frozen=True)
class PlayIO:
    """Where the player's lines come from and where the text for them goes.

    ``input_fn(prompt)`` returns one line without its newline and raises ``EOFError`` at
    the end of input (like :func:`input`); ``print_fn(text)`` shows one block of text.
    """

    input_fn: Callable[[str], str]
    print_fn: Callable[[str], None]

    @classmethod
    def from_streams(cls, stdin: TextIO, stdout: TextIO) -> PlayIO:
        """Lines from ``stdin``, text (and prompts) to ``stdout``."""

        def read(prompt: str) -> str:
            stdout.write(prompt)
            stdout.flush()
            line = stdin.readline()
            if not line:
                raise EOFError
            return line.rstrip("\r\n")

        def write(text: str) -> None:
            stdout.write(text + "\n")

        return cls(read, write)

    def say(self, text: str = "") -> None:
        self.print_fn(text)

    def ask(self, prompt: str) -> str:
        """The next line; :class:`PlayerQuit` at the end of input."""
        try:
            return self.input_fn(prompt)
        except EOFError:
            self.say("")
            raise PlayerQuit() from None


COMMON_HELP = """\
Commands (free, they never cost a turn or a call):
  :help      this help
  :history   your queries and the box's answers so far
  :intro     the task intro again
  :quit      end the episode now (recorded as failed: "the player quit"); so does end of input
An empty line is ignored. Ctrl-C aborts without recording anything."""


class LineReader(ABC):
    """Reads the player's lines and handles the free ``:`` commands."""

    def __init__(self, io: PlayIO) -> None:
        self.io = io
        self.intro = ""
        self.quit = False

    @abstractmethod
    def help_text(self) -> str:
        """What ``:help`` shows."""

    @abstractmethod
    def history_lines(self) -> list[str]:
        """What ``:history`` shows, one line per entry."""

    def read(self, prompt: str) -> str:
        """The next reply (stripped); commands are handled here and never returned."""
        while True:
            try:
                line = self.io.ask(prompt).strip()
            except PlayerQuit:
                self.quit = True
                raise
            if not line:
                continue
            if not line.startswith(":"):
                return line
            command = line[1:].strip().lower()
            if command in ("help", "h", "?"):
                self.io.say(self.help_text())
            elif command in ("history", "hist"):
                lines = self.history_lines()
                self.io.say("\n".join(lines) if lines else "Nothing yet.")
            elif command == "intro":
                self.io.say(self.intro)
            elif command in ("quit", "q", "exit"):
                self.quit = True
                raise PlayerQuit()
            else:
                self.io.say(f"Unknown command {line!r}. Type :help for the commands.")
