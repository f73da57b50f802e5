"""The ERI family: encryption rule inference (plaintext -> ciphertext of a hidden cipher)."""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping
from typing import Any, ClassVar

from blackboxes.box import JSONValue, Level
from blackboxes.families import register_family
from blackboxes.families._base import Family, HypothesisSpace, Rule
from blackboxes.families.eri import _inputs
from blackboxes.families.eri._alphabet import MAX_LEN, normalise
from blackboxes.families.eri._kind import CipherKind, Encrypt
from blackboxes.families.eri._kinds import KINDS, LEVEL_KINDS
from blackboxes.information import MixtureVersionSpace, VersionSpace
from oracle_bench.errors import FamilyError, InvalidQueryError, UnknownNameError

__all__ = ["EncryptionRuleInference"]

_INTRO = """\
You are exploring a black box that encrypts text with a fixed, hidden cipher.

Query: send one plaintext made of letters A-Z and spaces, 1 to {max_len} characters.
Case does not matter and other characters are ignored: the plaintext is uppercased, every
character that is not a letter or a space is dropped, runs of spaces become one space, and
leading/trailing spaces are removed. An empty or too long plaintext is rejected (and costs
the turn).

Answer: the ciphertext of your plaintext: uppercase letters, possibly with spaces. The
cipher may keep, move or drop spaces and may change the length of the text. The box is
deterministic: the same plaintext always gives the same ciphertext.

Evaluation: after exploring, you are given {items} new plaintexts and must answer the exact
ciphertext of each. Answers are compared after the same normalisation (uppercase, letters
and spaces only, runs of spaces collapsed, trimmed), so spaces inside the ciphertext matter.
"""


def _check_query(x: JSONValue) -> str:
    if not isinstance(x, str) or not x or x != normalise(x) or len(x) > MAX_LEN:
        raise InvalidQueryError(
            f"an ERI input must be a normalised plaintext (letters A-Z and single spaces, "
            f"1-{MAX_LEN} characters), got {x!r}"
        )
    return x


def _call(encrypt: Encrypt, x: JSONValue) -> JSONValue:
    return encrypt(_check_query(x))


@register_family
class EncryptionRuleInference(Family):
    """ERI: a hidden cipher maps plaintexts to ciphertexts.

    Protocol. X: plaintexts of letters A-Z and single spaces, 1..32 characters after
    normalisation (uppercase, drop everything but letters and spaces, collapse spaces,
    strip). Y: ciphertext strings. Letter-wise and position-dependent ciphers keep spaces
    in place (keys advance on letters only); transpositions permute the letters and leave
    spaces at their positions; digraph ciphers (Playfair, Hill) return letters only.
    log2|Y| = (most output letters) * log2(alphabet): 32 * log2 26 for most kinds,
    64 * log2 25 for Playfair (a doubled letter can double the length, J never appears).
    Answers are checked exactly after the same normalisation.
    """

    name: ClassVar[str] = "ERI"
    title: ClassVar[str] = "Encryption rule inference"
    test_items: ClassVar[int] = 8

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

        def fn(x: JSONValue) -> JSONValue:
            return _call(encrypt, x)

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
        return HypothesisSpace(log2_h=spec.log2_h, log2_y=spec.log2_y)

    def version_space(self, level: Level, kind: str | None = None) -> VersionSpace:
        """One kind's prior space, or (``kind=None``) all kinds of the level, uniform over kinds."""
        if kind is not None:
            return self._kind(kind, level).space()
        names = self.kinds(level)
        return MixtureVersionSpace(
            [(n, 1.0 / len(names), KINDS[n].log2_h, KINDS[n].space()) for n in names]
        )

    # -- code ----------------------------------------------------------------
    def code_template(self, rule: Rule) -> tuple[str, dict[str, Any]]:
        spec = self._kind(rule.kind, rule.level)
        return spec.template_name, spec.context(spec.check_params(rule.params))

    # -- protocol ------------------------------------------------------------
    def task_intro(self, level: Level) -> str:
        self.kinds(level)  # validates the level
        return _INTRO.format(max_len=MAX_LEN, items=self.test_items)

    @property
    def input_schema(self) -> str:
        return (
            f"plaintext: 1-{MAX_LEN} letters A-Z and spaces "
            "(case-insensitive, other characters dropped)"
        )

    @property
    def output_schema(self) -> str:
        return "ciphertext: uppercase letters A-Z, possibly with spaces"

    def parse_query(self, text: str) -> JSONValue:
        if not isinstance(text, str):
            raise InvalidQueryError(f"a query must be text, got {type(text).__name__}")
        plain = normalise(text)
        if not plain:
            raise InvalidQueryError(
                "empty plaintext: send 1 to 32 letters A-Z and spaces "
                "(other characters are dropped)"
            )
        if len(plain) > MAX_LEN:
            raise InvalidQueryError(
                f"plaintext too long: {len(plain)} characters after normalisation, "
                f"at most {MAX_LEN}"
            )
        return plain

    def format_query(self, x: JSONValue) -> str:
        return _check_query(x)

    def render_output(self, y: JSONValue) -> str:
        if not isinstance(y, str):
            raise FamilyError(f"an ERI output must be a string, got {y!r}")
        return y

    def normalise_answer(self, text: str) -> str:
        return normalise(text)

    # -- inputs --------------------------------------------------------------
    def random_query(self, rng: random.Random) -> JSONValue:
        return _inputs.random_query(rng)

    def exploration_plan(self, level: Level, turns: int) -> list[JSONValue]:
        self.kinds(level)
        return list(_inputs.exploration_plan(turns))

    def query_pool(self, rng: random.Random, level: Level, n: int) -> list[JSONValue]:
        self.kinds(level)
        return list(_inputs.query_pool(rng, n))

    def test_inputs(
        self, rng: random.Random, k: int, exclude: Collection[JSONValue]
    ) -> list[JSONValue]:
        return list(_inputs.test_inputs(rng, k, exclude))

    def differential_inputs(self, rng: random.Random, n: int) -> list[JSONValue]:
        return list(_inputs.differential_inputs(rng, n))
