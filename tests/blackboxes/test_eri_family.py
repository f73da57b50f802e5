"""ERI: the family contract, protocol, inputs and box templates."""

from __future__ import annotations

import math
import random
from typing import Any, cast

import pytest

from blackboxes.families import LEVELS, get_family
from blackboxes.families.eri import KINDS, LEVEL_KINDS, EncryptionRuleInference
from oracle_bench.errors import FamilyError, InvalidQueryError, UnknownNameError
from templates import render
from tests.blackboxes.restricted import restricted_blackbox

ERI = cast(EncryptionRuleInference, get_family("ERI"))
ALL = [(level, kind) for level in LEVELS for kind in ERI.kinds(level)]


def test_registered_with_enough_kinds() -> None:
    assert ERI.name == "ERI"
    assert ERI.title == "Encryption rule inference"
    assert ERI.test_items == 8
    assert len({k for level in LEVELS for k in ERI.kinds(level)}) >= 8
    assert set(LEVEL_KINDS["easy"]).isdisjoint(LEVEL_KINDS["hard"])
    assert set(KINDS) == {k for level in LEVELS for k in ERI.kinds(level)}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("hello, world!", "HELLO WORLD"),
        ("  a   b\tc ", "A B C"),
        ("hello\nworld", "HELLO WORLD"),
        ("Zz9", "ZZ"),
        ("x" * 32, "X" * 32),
    ],
)
def test_parse_query_normalises(text: str, expected: str) -> None:
    assert ERI.parse_query(text) == expected
    assert ERI.parse_query(ERI.format_query(expected)) == expected


@pytest.mark.parametrize("text", ["", "   ", "123 !?", "A" * 33, "AB " * 11 + "C"])
def test_parse_query_rejects(text: str) -> None:
    with pytest.raises(InvalidQueryError):
        ERI.parse_query(text)


def test_answers_and_rendering() -> None:
    assert ERI.normalise_answer("  mjqqt   btwqi.") == "MJQQT BTWQI"
    assert ERI.check_answer("MJQQT BTWQI", "mjqqt btwqi")
    assert not ERI.check_answer("MJQQT BTWQI", "MJQQTBTWQI")
    assert ERI.render_output("ABC") == "ABC"
    with pytest.raises(FamilyError):
        ERI.render_output(3)


def test_intro_and_schemas_do_not_leak_the_rule() -> None:
    for level in LEVELS:
        intro = ERI.task_intro(level).lower()
        length = {"easy": 32, "hard": 8}[level]
        assert f"1 to {length} characters" in intro and "deterministic" in intro
        assert f"at most {length} characters" in intro
        for kind in KINDS:
            assert kind not in intro
        for kind in (
            "caesar",
            "vigenere",
            "playfair",
            "hill",
            "substitution",
            "railfence",
            "columnar",
            "affine",
        ):
            assert kind not in intro
    assert ERI.input_schema and ERI.output_schema


def test_unknown_kind_and_level() -> None:
    with pytest.raises(UnknownNameError):
        ERI.sample_rule(random.Random(0), "easy", "hill")
    with pytest.raises(UnknownNameError):
        ERI.kinds("medium")  # type: ignore[arg-type]
    with pytest.raises(FamilyError):
        ERI.rule_from_params("caesar", "easy", {"shift": 0})
    with pytest.raises(FamilyError):
        ERI.rule_from_params("vigenere", "easy", {"key": "ABAB"})
    with pytest.raises(FamilyError):
        ERI.rule_from_params("hill", "hard", {"matrix": [2, 0, 0, 1]})


def test_rule_rejects_unnormalised_input() -> None:
    rule = ERI.sample_rule(random.Random(0), "easy", "caesar")
    with pytest.raises(InvalidQueryError):
        rule("hello")


@pytest.mark.parametrize(("level", "kind"), ALL)
def test_sampling_is_deterministic_and_params_round_trip(level: Any, kind: str) -> None:
    for seed in range(5):
        a = ERI.sample_rule(random.Random(seed), level, kind)
        b = ERI.sample_rule(random.Random(seed), level, kind)
        assert a == b and a.kind == kind and a.family == "ERI"
        again = ERI.rule_from_params(kind, level, dict(a.params))
        assert again == a
        for x in ERI.differential_inputs(random.Random(seed), 40):
            assert again(x) == a(x)
        assert a.description and str(a.params) != "{}"


def test_sample_rule_uniform_over_kinds() -> None:
    rng = random.Random(3)
    seen = {ERI.sample_rule(rng, "easy").kind for _ in range(200)}
    assert seen == set(ERI.kinds("easy"))


@pytest.mark.parametrize(("level", "kind"), ALL)
def test_hypothesis_space(level: Any, kind: str) -> None:
    hs = ERI.hypothesis_space(kind, level)
    assert hs.log2_h is not None and hs.log2_h > 0
    n = ERI.query_length(level)
    assert n == {"easy": 32, "hard": 8}[level]
    assert hs.log2_y == KINDS[kind].log2_y(n) >= n  # at least one bit per character
    assert hs.t_info == math.ceil(round(hs.log2_h / hs.log2_y, 9))
    longer = ERI.configure(query_length=32).hypothesis_space(kind, level)
    assert longer.log2_h == hs.log2_h and longer.log2_y >= hs.log2_y
    assert ERI.version_space(level, kind).log2_count() == pytest.approx(hs.log2_h, abs=1e-9)


@pytest.mark.parametrize(("level", "kind"), ALL)
def test_template_matches_reference(level: Any, kind: str) -> None:
    for seed in range(6):
        rule = ERI.sample_rule(random.Random(100 + seed), level, kind)
        name, ctx = ERI.code_template(rule)
        assert name == f"code/eri/{kind}.py.j2"
        code = render(name, **ctx)
        assert "import" not in code and "_" not in "".join(
            tok for tok in code.replace("\n", " ").split() if not tok.startswith(('"', "'"))
        ).replace("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "")
        namespace: dict[str, Any] = {}
        exec(code, namespace)
        plain = namespace["blackbox"]
        # The box's own interface: cased kinds get lower and mixed case too.
        inputs = ERI.for_rule(rule).differential_inputs(random.Random(seed), 220)
        assert len(inputs) == 220
        for x in inputs:
            assert plain(x) == rule(x), (kind, rule.params, x)
        restricted = restricted_blackbox(code)
        for x in inputs[:40]:
            assert restricted(x) == rule(x)


def test_inputs_helpers() -> None:
    rng = random.Random(1)
    for _ in range(300):
        q = ERI.random_query(rng)
        assert isinstance(q, str) and ERI.parse_query(q) == q
    plan = ERI.exploration_plan("easy", 40)
    assert len(plan) == 40 and len(set(plan)) == 40
    assert all(ERI.parse_query(q) == q for q in plan)
    assert ERI.exploration_plan("easy", 3) == plan[:3]
    pool = ERI.query_pool(random.Random(2), "easy", 30)
    assert len(pool) == 30 and len(set(pool)) == 30
    assert all(ERI.parse_query(q) == q for q in pool)
    assert ERI.query_pool(random.Random(2), "easy", 30) == pool
    diff = ERI.differential_inputs(random.Random(3), 250)
    assert diff[0] == "A" and "ABCDEFGHIJKLMNOPQRSTUVWXYZ" in diff[:10]
    assert len(set(diff)) == 250 and all(ERI.parse_query(q) == q for q in diff)


def test_test_inputs_exclude_and_determinism() -> None:
    first = ERI.test_inputs(random.Random(9), 8, [])
    again = ERI.test_inputs(random.Random(9), 8, [])
    assert first == again and len(set(first)) == 8
    assert all(5 <= len(t) <= 24 and ERI.parse_query(t) == t for t in first)
    assert any(" " in t for t in first)
    excluded = ERI.test_inputs(random.Random(9), 8, first[:4])
    assert not set(excluded) & set(first[:4])
