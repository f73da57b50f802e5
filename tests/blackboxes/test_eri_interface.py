"""ERI's public interface: query length, output formats, what a box.json tells, legacy boxes."""

from __future__ import annotations

import math
import random
from typing import cast

import pytest

from blackboxes.box import BoxInfo
from blackboxes.families import LEVELS, family_for_box, get_family
from blackboxes.families.eri import KINDS, EncryptionRuleInference
from blackboxes.families.eri._alphabet import MIN_QUERY_LENGTH, OUTPUT_FORMATS
from blackboxes.information import expected_information
from oracle_bench.errors import FamilyError, InvalidQueryError, UsageError

ERI = cast(EncryptionRuleInference, get_family("ERI"))


def _served(rule_kind: str, level: str = "hard") -> EncryptionRuleInference:
    rule = ERI.sample_rule(random.Random(0), level, rule_kind)  # type: ignore[arg-type]
    return cast(EncryptionRuleInference, ERI.for_rule(rule))


def test_query_length_is_a_setting_with_level_defaults() -> None:
    assert ERI.query_length("easy") == 32 and ERI.query_length("hard") == 8
    longer = ERI.configure(query_length=16)
    assert longer.query_length("hard") == 16 and longer.query_length("easy") == 16
    for bad in (MIN_QUERY_LENGTH - 1, 33, "12", True, 8.5):
        with pytest.raises(UsageError, match="--query-length"):
            ERI.configure(query_length=bad)
    with pytest.raises(UsageError, match="no option"):
        ERI.configure(states=(2, 3))


def test_box_records_carry_the_interface() -> None:
    for kind in ("substitution_columnar", "bacon", "vigenere52"):
        rule = ERI.sample_rule(random.Random(1), "hard", kind)
        info, facts = ERI.box_records("ERI-hard-0000", rule)
        fmt = KINDS[kind].output_format
        assert info.interface == {"query_length": 8, "output": fmt}
        assert "1 to 8 characters" in info.task_intro and "at most 8 characters" in info.task_intro
        assert kind not in info.task_intro and kind not in info.output_schema
        assert facts.log2_y == KINDS[kind].log2_y(8)
        assert facts.t_info == math.ceil(round(KINDS[kind].log2_h / facts.log2_y, 9))
        served = family_for_box(info)
        assert isinstance(served, EncryptionRuleInference)
        assert served.output == fmt and served.query_length("hard") == 8


def test_legacy_box_json_is_served_as_before() -> None:
    """A box written before interfaces existed: 32-character uppercase queries and answers."""
    info = BoxInfo(
        id="ERI-easy-0000",
        family="ERI",
        level="easy",
        task_intro="...",
        input_schema="...",
        output_schema="...",
    )
    served = cast(EncryptionRuleInference, family_for_box(info))
    assert served.output == "letters" and served.query_length("hard") == 32
    assert served.parse_query("a" * 32) == "A" * 32
    with pytest.raises(FamilyError, match="unknown ERI interface"):
        ERI.for_interface({"alphabet": 3})
    with pytest.raises(FamilyError, match="output format"):
        ERI.for_interface({"output": "emoji"})
    with pytest.raises(FamilyError, match="query-length"):
        ERI.for_interface({"query_length": 99})


def test_parse_query_follows_the_box() -> None:
    short = _served("autokey")
    with pytest.raises(InvalidQueryError, match="11 characters after normalisation"):
        short.parse_query("hello, world!")  # normalised first, then measured
    assert short.parse_query("  ab  cd ") == "AB CD"
    with pytest.raises(InvalidQueryError, match="at most 8"):
        short.parse_query("ABCDEFGHI")
    cased = _served("vigenere52")
    assert cased.parse_query("Hi  Bob!") == "Hi Bob"
    with pytest.raises(InvalidQueryError, match="at most 8"):
        cased.parse_query("Hello World")
    assert cased.format_query("aB c") == "aB c"
    with pytest.raises(InvalidQueryError):
        short.format_query("ab")  # not normalised for an uppercase box


def test_answer_normalisation_per_format() -> None:
    letters, cased, digits = _served("hill"), _served("vigenere52"), _served("bacon")
    assert letters.check_answer("ABC DE", "  abc   de ")
    assert not letters.check_answer("ABC DE", "ABCDE")
    assert cased.check_answer("aBc De", " aBc  De ")
    assert not cased.check_answer("aBc De", "ABC DE")  # case matters
    assert digits.check_answer("01101 11", "01101, 11")
    assert digits.check_answer("01101 11", "[01101 - 11]")
    assert not digits.check_answer("01101 11", "0110111")  # grouping matters
    assert not digits.check_answer("01101 11", "1101 11")  # leading zeros matter
    for fmt, served in (("letters", letters), ("cased", cased), ("digits", digits)):
        assert served.output == fmt
        assert served.output_schema and fmt in OUTPUT_FORMATS


def test_intro_states_each_format_and_its_normalisation() -> None:
    intros = {fmt: ERI.for_interface({"output": fmt}).task_intro("hard") for fmt in OUTPUT_FORMATS}
    assert "case-sensitively" in intros["cased"] and "a-z" in intros["cased"]
    assert "digits" in intros["digits"] and "separator" in intros["digits"]
    assert "uppercase" in intros["letters"]
    assert len(set(intros.values())) == 3
    for intro in intros.values():
        assert all(kind not in intro for kind in KINDS)


def test_inputs_respect_the_query_length_and_case() -> None:
    for fmt in OUTPUT_FORMATS:
        served = ERI.for_interface({"query_length": 8, "output": fmt})
        rng = random.Random(4)
        for _ in range(200):
            q = served.random_query(rng)
            assert isinstance(q, str) and 1 <= len(q) <= 8 and served.parse_query(q) == q
        plan = served.exploration_plan("hard", 20)
        assert len(plan) == len(set(plan)) == 20
        assert all(isinstance(q, str) and len(q) == 8 for q in plan)
        pool = served.query_pool(random.Random(5), "hard", 32)
        assert len(set(pool)) == 32 and all(served.parse_query(str(q)) == q for q in pool)
        items = served.test_inputs(random.Random(6), 8, plan[:3])
        assert all(isinstance(t, str) and 5 <= len(t) <= 8 for t in items)
        assert not set(items) & set(plan[:3])
        # Differential inputs cover the whole domain a box accepts, 32 characters.
        diff = served.differential_inputs(random.Random(7), 120)
        assert max(len(str(x)) for x in diff) == 32
    cased = ERI.for_interface({"query_length": 8, "output": "cased"})
    items = cased.test_inputs(random.Random(1), 40, [])
    assert any(str(t) != str(t).upper() for t in items)  # mixed case held-out items


@pytest.mark.parametrize("level", LEVELS)
def test_first_round_of_the_plan_brings_every_letter(level: str) -> None:
    served = ERI.for_interface({"query_length": ERI.query_length(level)})  # type: ignore[arg-type]
    plan = served.exploration_plan(level, 4)  # type: ignore[arg-type]
    assert set("".join(str(q) for q in plan)) >= set("ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def _plan_gains(kind: str, level: str, seed: int, turns: int) -> list[float]:
    """Realised information of each fixed probe on one box of ``kind``."""
    rule = ERI.sample_rule(random.Random(seed), level, kind)  # type: ignore[arg-type]
    served = ERI.for_rule(rule)
    space = served.version_space(rule.level, kind)
    gains = []
    for x in served.exploration_plan(rule.level, turns):
        before = space.log2_count()
        space = space.observe(x, rule(x))
        gains.append(before - space.log2_count())
    return gains


@pytest.mark.parametrize("kind", sorted(set(ERI.kinds("hard"))))
def test_every_fixed_probe_informs_until_the_rule_is_known(kind: str) -> None:
    """No hard probe is wasted: each one either gains information or comes after the
    kind's space has shrunk to one rule (the old plan's 'AAAA...' added 0 bits)."""
    for seed in range(3):
        gains = _plan_gains(kind, "hard", seed, 6)
        left = ERI.version_space("hard", kind).log2_count() - sum(gains)
        for t, gain in enumerate(gains):
            resolved = ERI.version_space("hard", kind).log2_count() - sum(gains[:t]) < 1e-9
            assert gain > 1e-9 or resolved, (kind, seed, t, gains, left)


def test_bound_binds_at_the_hard_default() -> None:
    """T_info > 1 for most hard kinds at 8 characters; every kind is 1 at 32 (easy)."""
    hard = {k: ERI.hypothesis_space(k, "hard").t_info for k in ERI.kinds("hard")}
    assert sum(t is not None and t > 1 for t in hard.values()) > len(hard) / 2
    assert all(ERI.hypothesis_space(k, "easy").t_info == 1 for k in ERI.kinds("easy"))
    long = ERI.configure(query_length=32)
    at32 = {k: long.hypothesis_space(k, "hard").t_info for k in ERI.kinds("hard")}
    # Three random alphabets (265 bits) outgrow even one 32-letter answer (150 bits).
    assert at32 == {k: 2 if k == "polyalphabetic" else 1 for k in ERI.kinds("hard")}
    assert hard["polyalphabetic"] == 8


def test_prior_expected_information_never_exceeds_log2_y() -> None:
    for level in LEVELS:
        served_all = [ERI.for_interface({"output": f}) for f in OUTPUT_FORMATS]
        for served in served_all:
            fam = cast(EncryptionRuleInference, served)
            n = ERI.query_length(level)  # type: ignore[arg-type]
            fam = cast(EncryptionRuleInference, fam.configure(query_length=n))
            for kind in fam.kinds(level):  # type: ignore[arg-type]
                if KINDS[kind].output_format != fam.output:
                    continue
                space = fam.version_space(level, kind)  # type: ignore[arg-type]
                for x in fam.exploration_plan(level, 3):  # type: ignore[arg-type]
                    h = expected_information(space, x)
                    assert h <= KINDS[kind].log2_y(n) + 1e-6, (kind, x, h)
