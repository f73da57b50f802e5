"""The ERI family: encryption rule inference (plaintext -> ciphertext of a hidden cipher)."""

from __future__ import annotations

import random
import textwrap
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar, cast

from blackboxes.box import JSONValue, Level
from blackboxes.families import register_family
from blackboxes.families._base import Family, HypothesisSpace, Rule
from blackboxes.families.eri import _inputs
from blackboxes.families.eri._alphabet import (
    DEFAULT_QUERY_LENGTH,
    MAX_LEN,
    MIN_QUERY_LENGTH,
    OUTPUT_FORMATS,
    OutputFormat,
    normalise,
    normalise_cased,
    normalise_digits,
)
from blackboxes.families.eri._inputs import InputShape
from blackboxes.families.eri._kind import CipherKind, Encrypt
from blackboxes.families.eri._kinds import KINDS, LEVEL_KINDS
from blackboxes.information import MixtureVersionSpace, VersionSpace
from oracle_bench.errors import FamilyError, InvalidQueryError, UnknownNameError, UsageError

__all__ = ["EncryptionRuleInference"]

_QUERY = {
    False: (
        "Query: send one plaintext made of letters A-Z and spaces, 1 to {max_len} characters. "
        "Case does not matter and other characters are ignored: the plaintext is uppercased, "
        "every character that is not a letter or a space is dropped, runs of spaces become one "
        "space, and leading/trailing spaces are removed. An empty or too long plaintext is "
        "rejected (and costs the turn)."
    ),
    True: (
        "Query: send one plaintext made of letters A-Z, a-z and spaces, 1 to {max_len} "
        "characters. Case matters and is kept; other characters are ignored: every character "
        "that is not a letter or a space is dropped, runs of spaces become one space, and "
        "leading/trailing spaces are removed. An empty or too long plaintext is rejected (and "
        "costs the turn)."
    ),
}

_ANSWER: dict[OutputFormat, str] = {
    "letters": (
        "Answer: the ciphertext of your plaintext: uppercase letters, possibly with spaces. The "
        "cipher may keep, move or drop spaces and may change the length of the text."
    ),
    "cased": (
        "Answer: the ciphertext of your plaintext: letters A-Z and a-z, possibly with spaces. "
        "The cipher may keep, move or drop spaces and may change the length of the text."
    ),
    "digits": (
        "Answer: the ciphertext of your plaintext: groups of digits 0-9 separated by single "
        "spaces (letters become numbers; the cipher may drop spaces and change the length)."
    ),
}

_CHECK: dict[OutputFormat, str] = {
    "letters": (
        "Answers are compared after the same normalisation (uppercase, letters and spaces only, "
        "runs of spaces collapsed, trimmed), so spaces inside the ciphertext matter."
    ),
    "cased": (
        "Answers are compared case-sensitively after keeping letters and spaces only, "
        "collapsing runs of spaces and trimming, so case and spaces inside the ciphertext matter."
    ),
    "digits": (
        "Answers are compared after normalisation: every run of characters other than digits "
        "(spaces, commas, dashes) becomes one separator, so the digits and their grouping matter."
    ),
}

_INTRO = (
    "You are exploring a black box that encrypts text with a fixed, hidden cipher.",
    "{query}",
    "{answer} The box is deterministic: the same plaintext always gives the same ciphertext.",
    "Evaluation: after exploring, you are given {items} new plaintexts of at most {max_len} "
    "characters and must answer the exact ciphertext of each. {check}",
)
"""The intro's paragraphs, each wrapped at 90 columns."""

_SCHEMA: dict[OutputFormat, str] = {
    "letters": "ciphertext: uppercase letters A-Z, possibly with spaces",
    "cased": "ciphertext: letters A-Z and a-z, possibly with spaces (case-sensitive)",
    "digits": "ciphertext: groups of digits 0-9 separated by single spaces",
}

_NORMALISE: dict[OutputFormat, Callable[[str], str]] = {
    "letters": normalise,
    "cased": normalise_cased,
    "digits": normalise_digits,
}


@dataclass(frozen=True)
class _Settings:
    query_length: int | None = None
    """Longest query in characters; None: the level's default (DEFAULT_QUERY_LENGTH)."""
    output: OutputFormat | None = None
    """Set when serving one box: its output format (None: uppercase letters)."""


def _query_length_option(value: object) -> int:
    if (
        not isinstance(value, int)
        or isinstance(value, bool)
        or not MIN_QUERY_LENGTH <= value <= MAX_LEN
    ):
        raise UsageError(
            f"--query-length must be an integer from {MIN_QUERY_LENGTH} to {MAX_LEN} "
            f"(the kinds' key counts are exact from {MIN_QUERY_LENGTH} characters on), "
            f"not {value!r}"
        )
    return value


@register_family
class EncryptionRuleInference(Family):
    """ERI: a hidden cipher maps plaintexts to ciphertexts.

    Protocol. X: plaintexts of letters and single spaces, 1..n characters after
    normalisation (n is the query length: 32 for easy, 8 for hard unless
    ``--query-length`` says otherwise; a box's n is in its box.json). Letters are uppercased
    except for ``cased`` kinds, which keep case. Y: ciphertexts in the kind's output format
    (``OutputFormat``): uppercase letters (letter-wise and position-dependent ciphers keep
    spaces in place, transpositions put them back at their positions, digraph ciphers drop
    them), letters of both cases (mod-52 ciphers), or digit groups (grid, Bacon, 01248,
    knapsack and RSA encodings). Held-out plaintexts have at most n characters too.
    log2|Y| is the kind's bound for n-character queries, e.g. n * log2 26 for letters.
    Answers are checked exactly after the format's normalisation.
    """

    name: ClassVar[str] = "ERI"
    title: ClassVar[str] = "Encryption rule inference"
    test_items: ClassVar[int] = 8

    def __init__(self, settings: _Settings | None = None) -> None:
        self.settings = settings or _Settings()

    def configure(self, **options: Any) -> EncryptionRuleInference:
        """Options: ``query_length`` (8..32; default 32 for easy, 8 for hard)."""
        unknown = set(options) - {"query_length"}
        if unknown:
            raise UsageError(f"category ERI takes no option {', '.join(sorted(unknown))}")
        length = options.get("query_length")
        if length is None:
            return self
        return EncryptionRuleInference(
            replace(self.settings, query_length=_query_length_option(length))
        )

    def query_length(self, level: Level) -> int:
        """The longest query (characters) at ``level`` under these settings."""
        if self.settings.query_length is not None:
            return self.settings.query_length
        self.kinds(level)  # validates the level
        return DEFAULT_QUERY_LENGTH[level]

    @property
    def output(self) -> OutputFormat:
        return self.settings.output or "letters"

    def _shape(self, level: Level | None = None) -> InputShape:
        if level is not None:
            length = self.query_length(level)
        else:
            # A served box always has its query length; a bare family takes the longest.
            length = self.settings.query_length or MAX_LEN
        return InputShape(length, self.output == "cased")

    # -- interface -----------------------------------------------------------
    def interface_of(self, rule: Rule) -> dict[str, JSONValue]:
        spec = KINDS.get(rule.kind)
        # An LLM-designed rule (no trusted kind) answers in uppercase letters, as its
        # designer is told.
        return {
            "query_length": self.query_length(rule.level),
            "output": spec.output_format if spec is not None else "letters",
        }

    def for_interface(self, interface: Mapping[str, JSONValue]) -> EncryptionRuleInference:
        """A box's family: ``query_length`` and ``output`` from its box.json. A box written
        before they existed has neither: 32-character queries, uppercase letters."""
        unknown = set(interface) - {"query_length", "output"}
        if unknown:
            raise FamilyError(f"unknown ERI interface setting {', '.join(sorted(unknown))}")
        try:
            length = _query_length_option(interface.get("query_length", MAX_LEN))
        except UsageError as exc:
            raise FamilyError(f"ERI box interface: {exc}") from None
        output = interface.get("output", "letters")
        if output not in OUTPUT_FORMATS:
            raise FamilyError(f"ERI box interface: unknown output format {output!r}")
        return EncryptionRuleInference(
            _Settings(query_length=length, output=cast(OutputFormat, output))
        )

    def prior_key(self, level: Level) -> tuple[str | int, ...]:
        return (self.name, level, self.query_length(level), self.output)

    # -- rules ---------------------------------------------------------------
    def kinds(self, level: Level) -> tuple[str, ...]:
        if level not in LEVEL_KINDS:
            raise UnknownNameError("level", str(level), list(LEVEL_KINDS))
        return LEVEL_KINDS[level]

    def _kind(self, kind: str, level: Level) -> CipherKind:
        if kind not in self.kinds(level):
            raise UnknownNameError(f"ERI {level} rule kind", kind, list(self.kinds(level)))
        return KINDS[kind]

    def _rule(self, spec: CipherKind, level: Level, params: Mapping[str, JSONValue]) -> Rule:
        checked = spec.check_params(params)
        encrypt = spec.encrypt(checked)
        cased = spec.output_format == "cased"

        def fn(x: JSONValue) -> JSONValue:
            return _call(encrypt, x, cased)

        return Rule(
            family=self.name,
            kind=spec.name,
            level=level,
            params=checked,
            description=spec.describe(checked),
            fn=fn,
        )

    def sample_rule(self, rng: random.Random, level: Level, kind: str | None = None) -> Rule:
        """Uniform kind among ``kinds(level)`` unless given, then a uniform function of its H."""
        name = rng.choice(self.kinds(level)) if kind is None else kind
        spec = self._kind(name, level)
        return self._rule(spec, level, spec.sample_params(rng))

    def rule_from_params(self, kind: str, level: Level, params: Mapping[str, JSONValue]) -> Rule:
        return self._rule(self._kind(kind, level), level, params)

    def hypothesis_space(self, kind: str, level: Level) -> HypothesisSpace:
        spec = self._kind(kind, level)
        return HypothesisSpace(log2_h=spec.log2_h, log2_y=spec.log2_y(self.query_length(level)))

    def version_space(self, level: Level, kind: str | None = None) -> VersionSpace:
        """One kind's prior space, or (``kind=None``) the agents' view: every kind of the
        level with this box's output format (which the intro states), uniform over kinds."""
        if kind is not None:
            return self._kind(kind, level).space()
        names = [n for n in self.kinds(level) if KINDS[n].output_format == self.output]
        if not names:
            raise FamilyError(f"no ERI {level} kind has output format {self.output!r}")
        return MixtureVersionSpace(
            [(n, 1.0 / len(names), KINDS[n].log2_h, KINDS[n].space()) for n in names]
        )

    # -- code ----------------------------------------------------------------
    def code_template(self, rule: Rule) -> tuple[str, dict[str, Any]]:
        spec = self._kind(rule.kind, rule.level)
        return spec.template_name, spec.context(spec.check_params(rule.params))

    # -- protocol ------------------------------------------------------------
    def task_intro(self, level: Level) -> str:
        length = self.query_length(level)
        fields = {
            "query": _QUERY[self.output == "cased"].format(max_len=length),
            "answer": _ANSWER[self.output],
            "check": _CHECK[self.output],
            "max_len": length,
            "items": self.test_items,
        }
        paragraphs = (textwrap.fill(p.format(**fields), width=90) for p in _INTRO)
        return "\n\n".join(paragraphs) + "\n"

    @property
    def input_schema(self) -> str:
        shape = self._shape()
        letters = "A-Z, a-z" if shape.cased else "A-Z"
        case = "case kept" if shape.cased else "case-insensitive"
        return (
            f"plaintext: 1-{shape.length} letters {letters} and spaces "
            f"({case}, other characters dropped)"
        )

    @property
    def output_schema(self) -> str:
        return _SCHEMA[self.output]

    def parse_query(self, text: str) -> JSONValue:
        if not isinstance(text, str):
            raise InvalidQueryError(f"a query must be text, got {type(text).__name__}")
        shape = self._shape()
        plain = shape.normalise(text)
        letters = "letters A-Z, a-z" if shape.cased else "letters A-Z"
        if not plain:
            raise InvalidQueryError(
                f"empty plaintext: send 1 to {shape.length} {letters} and spaces "
                "(other characters are dropped)"
            )
        if len(plain) > shape.length:
            raise InvalidQueryError(
                f"plaintext too long: {len(plain)} characters after normalisation, "
                f"at most {shape.length}"
            )
        return plain

    def format_query(self, x: JSONValue) -> str:
        shape = self._shape()
        if not isinstance(x, str) or not x or x != shape.normalise(x) or len(x) > MAX_LEN:
            raise InvalidQueryError(f"not a normalised ERI plaintext: {x!r}")
        return x

    def render_output(self, y: JSONValue) -> str:
        if not isinstance(y, str):
            raise FamilyError(f"an ERI output must be a string, got {y!r}")
        return y

    def normalise_answer(self, text: str) -> str:
        return _NORMALISE[self.output](text)

    # -- inputs --------------------------------------------------------------
    def random_query(self, rng: random.Random) -> JSONValue:
        return _inputs.random_query(rng, self._shape())

    def exploration_plan(self, level: Level, turns: int) -> list[JSONValue]:
        return list(_inputs.exploration_plan(turns, self._shape(level)))

    def query_pool(
        self,
        rng: random.Random,
        level: Level,
        n: int,
        asked: Sequence[JSONValue] = (),
    ) -> list[JSONValue]:
        seen = [x for x in asked if isinstance(x, str)]
        return list(_inputs.query_pool(rng, n, self._shape(level), seen))

    def test_inputs(
        self, rng: random.Random, k: int, exclude: Collection[JSONValue]
    ) -> list[JSONValue]:
        return list(_inputs.test_inputs(rng, k, exclude, self._shape()))

    def differential_inputs(self, rng: random.Random, n: int) -> list[JSONValue]:
        return list(_inputs.differential_inputs(rng, n, self._shape()))


def _call(encrypt: Encrypt, x: JSONValue, cased: bool) -> JSONValue:
    norm = normalise_cased if cased else normalise
    if not isinstance(x, str) or not x or x != norm(x) or len(x) > MAX_LEN:
        raise InvalidQueryError(
            f"an ERI input must be a normalised plaintext (letters and single spaces, "
            f"1-{MAX_LEN} characters), got {x!r}"
        )
    return encrypt(x)
