"""A person playing a DFA episode in the terminal (``oracle-play``).

Besides the free ``:`` commands: ``? WORD`` (membership; ``?`` alone asks about the empty
word), ``eq {...}`` / ``eq @file.json`` (equivalence) and a raw JSON tool call. A person's
input is held to the same limits as a model's (:mod:`oracle_bench.bounded`).
"""

from __future__ import annotations

import json
from pathlib import Path

from evaluator.human import COMMON_HELP, LineReader, PlayIO
from evaluator.kinds.dfa.protocol import DfaEnvironment, EpisodeOver
from oracle_bench.bounded import MAX_TEXT_CHARS, BoundsError, load_json

__all__ = ["HumanDfaAgent"]


_DFA_HELP = """\
Calls (each valid one costs one call; invalid ones are free):
  ? WORD          membership query, e.g. "? {example}"; "?" alone (or ? "") asks about
                  the empty word; the answer is 1 (in the language) or 0
  eq {{...}}        equivalence query with a DFA as JSON on one line (format in :intro)
  eq @FILE.json   equivalence query with the DFA read from a file
  {{"tool": ...}}   a raw JSON tool call, exactly as in the intro"""


class HumanDfaAgent(LineReader):
    """A person playing a DFA episode through :class:`PlayIO`."""

    def __init__(self, io: PlayIO) -> None:
        super().__init__(io)
        self._env: DfaEnvironment | None = None

    def help_text(self) -> str:
        alphabet = self._env.alphabet if self._env is not None else ("a", "b")
        example = "".join(alphabet[:2]) or "a"
        return f"{_DFA_HELP.format(example=example)}\n{COMMON_HELP}"

    def history_lines(self) -> list[str]:
        if self._env is None:
            return []
        lines = []
        for call in self._env.calls:
            if not call.valid:
                lines.append(f"{call.index}. (free) {call.shown}")
            elif call.tool == "mq":
                lines.append(f"{call.index}. ? {json.dumps(call.word)} -> {call.shown}")
            else:
                lines.append(f"{call.index}. eq -> {call.shown}")
        return lines

    def play(self, env: DfaEnvironment) -> None:

        self._env = env
        self.intro = env.intro
        self.io.say(env.intro)
        self.io.say("")
        self.io.say('Shorthands: "? WORD" asks a membership query, "eq {...}" or "eq @FILE.json"')
        self.io.say("an equivalence query. Type :help for more.")
        while not env.over:
            self.io.say("")
            line = self.read(f"[{env.remaining} of {env.budget} calls left] > ")
            text = self._call_text(line)
            if text is None:
                continue
            try:
                self.io.say(env.call(text))
            except EpisodeOver:
                break
        self.io.say(f"The episode is over: {env.ended}.")

    def _call_text(self, line: str) -> str | None:
        """The JSON tool call for one input line, or None when it was answered locally."""
        if line.startswith("?"):
            word = line[1:].strip()
            if word.startswith('"'):
                try:
                    decoded = load_json(word, what="the word")
                except (BoundsError, json.JSONDecodeError):
                    decoded = None
                if isinstance(decoded, str):
                    word = decoded
            return json.dumps({"tool": "membership_query", "word": word}, ensure_ascii=False)
        head, _, rest = line.partition(" ")
        if head.lower() == "eq":
            return self._eq_text(rest.strip())
        if line.startswith("{"):
            return line
        self.io.say(
            f"Not a call: {line if len(line) <= 80 else line[:77] + '...'!r}. Use ? WORD, "
            "eq {...}, eq @FILE.json or a JSON tool call "
            "(:help)."
        )
        return None

    def _eq_text(self, rest: str) -> str | None:
        if not rest:
            self.io.say("eq needs a DFA: eq {...} (JSON on one line) or eq @FILE.json")
            return None
        if rest.startswith("@"):
            path = Path(rest[1:].strip()).expanduser()
            try:
                with path.open(encoding="utf-8") as fh:  # read no more than the limit
                    rest = fh.read(MAX_TEXT_CHARS + 1)
            except (OSError, UnicodeDecodeError) as exc:
                self.io.say(f"Cannot read {path}: {exc} (nothing was sent)")
                return None
            if len(rest) > MAX_TEXT_CHARS:
                self.io.say(
                    f"{path} has more than {MAX_TEXT_CHARS} characters; a hypothesis may have "
                    "at most that many (nothing was sent)"
                )
                return None
        try:
            dfa: object = load_json(rest, what="the hypothesis")
        except (BoundsError, json.JSONDecodeError):
            # Sent as text: the environment reports the JSON error or the limit as a free
            # invalid call.
            dfa = rest
        return json.dumps({"tool": "equivalence_query", "dfa": dfa}, ensure_ascii=False)

    def notes(self) -> list[str]:
        return []
