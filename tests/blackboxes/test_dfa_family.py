"""The DFA family: rules, parameters, box info, the membership box code, queries."""

from __future__ import annotations

import math

import pytest

from blackboxes.automata.counting import minimal_dfa_count
from blackboxes.automata.dfa import DFA
from blackboxes.automata.learners import learn
from blackboxes.automata.oracle import TargetOracle
from blackboxes.families import get_family
from blackboxes.families.dfa import AutomatonFamily, kind_for, states_of
from oracle_bench.errors import FamilyError, InvalidQueryError, UnknownNameError, UsageError
from oracle_bench.rng import rng_for
from sandbox import SandboxWorker
from templates import render


def _family(**options: object) -> AutomatonFamily:
    family = get_family("DFA")
    assert isinstance(family, AutomatonFamily)
    return family.configure(**options)


def test_levels_and_state_ranges() -> None:
    family = _family()
    assert family.kinds("easy") == ("states-2", "states-3", "states-4", "states-5")
    assert family.kinds("hard") == ("states-6", "states-7", "states-8", "states-9")
    assert _family(states=(4, 5)).kinds("hard") == ("states-4", "states-5")
    assert states_of(kind_for(17)) == 17
    for bad in ("states-1", "states-x", "dfa", "states-10001"):
        with pytest.raises(UnknownNameError):
            states_of(bad)


@pytest.mark.parametrize(
    "options",
    [
        {"states": (1, 3)},
        {"states": (5, 4)},
        {"states": (2, 201)},
        {"counterexamples": "longest"},
        {"alphabet_size": 1},
        {"colour": "red"},
    ],
)
def test_bad_options_are_usage_errors(options: dict[str, object]) -> None:
    with pytest.raises(UsageError):
        _family(**options)


def test_eri_refuses_dfa_options() -> None:
    with pytest.raises(UsageError, match="states"):
        get_family("ERI").configure(states=(2, 3))


@pytest.mark.parametrize("states", [2, 3, 5, 9])
def test_sampled_rules_are_canonical_minimal_targets(states: int) -> None:
    family = _family()
    rule = family.sample_rule(rng_for(0, "dfa-rule", states), "easy", kind_for(states))
    target = DFA.from_table(dict(rule.params))
    assert target.n == states and target.is_minimal() and target == target.canonical()
    assert rule.params["counterexamples"] == "short_random"
    for word in ("", "a", "ab", "bba", "abab"):
        assert rule(word) == int(target.accepts(word))
    again = family.rule_from_params(rule.kind, rule.level, rule.params)
    assert again.params == rule.params and again.description == rule.description


def test_rule_from_params_refuses_non_minimal_or_mislabelled_targets() -> None:
    family = _family()
    rule = family.sample_rule(rng_for(0, "dfa-bad"), "easy", kind_for(3))
    with pytest.raises(FamilyError):
        family.rule_from_params(kind_for(4), "easy", rule.params)
    redundant = {"alphabet": "ab", "delta": [[1, 1], [0, 0]], "accepting": [], "start": 0}
    with pytest.raises(FamilyError):
        family.rule_from_params(kind_for(2), "easy", redundant)


def test_box_code_matches_the_rule_in_the_sandbox() -> None:
    family = _family()
    rule = family.sample_rule(rng_for(1, "dfa-code"), "easy", kind_for(5))
    template, ctx = family.code_template(rule)
    code = render(template, **ctx)
    words = family.differential_inputs(rng_for(1, "dfa-diff"), 64)
    with SandboxWorker(code) as worker:
        for word in words:
            result = worker.call(word)
            assert result.ok and result.value == rule(word)
        assert not worker.call("abc").ok


def test_box_records_keep_the_baselines_and_the_state_count_owner_side() -> None:
    family = _family(counterexamples="minimal")
    rule = family.sample_rule(rng_for(2, "dfa-info"), "easy", kind_for(4))
    info, facts = family.box_records("DFA-easy-0000", rule)
    assert info.dfa is not None and facts.dfa is not None and info.family == "DFA"
    target = DFA.from_table(dict(rule.params))
    for name in ("kv", "lstar", "ttt"):
        result = learn(name, TargetOracle(target, "minimal"))
        assert (facts.dfa.baselines[name].mq, facts.dfa.baselines[name].eq) == (
            result.mq,
            result.eq,
        )
    lstar, ttt = facts.dfa.baselines["lstar"], facts.dfa.baselines["ttt"]
    assert info.dfa.reference_cost == min(lstar.total, ttt.total)
    assert facts.dfa.states == 4 and facts.dfa.counterexamples == "minimal"
    assert facts.log2_y == 1.0 and facts.rule_kind == "states-4"
    count = minimal_dfa_count(4, 2)
    assert count is not None and facts.log2_h == pytest.approx(math.log2(count))
    assert facts.log2_h_exact and facts.t_info == math.ceil(math.log2(count))
    # What an agent may see never gives the number of states or the rule kind.
    public = info.model_dump_json()
    assert "states" not in public and "4" not in info.task_intro


def test_estimated_counts_are_marked_and_never_over_state_t_info() -> None:
    family = _family()
    rule = family.sample_rule(rng_for(3, "dfa-info"), "hard", kind_for(9))
    _, facts = family.box_records("DFA-hard-0000", rule)
    assert not facts.log2_h_exact and facts.log2_h_confidence == 0.99
    assert facts.log2_h_low is not None and facts.log2_h_high is not None and facts.log2_h
    assert facts.log2_h_low <= facts.log2_h <= facts.log2_h_high
    assert facts.t_info == math.ceil(facts.log2_h_low)  # from the low end: 48, not 49
    assert facts.t_info == 48


def test_queries_parse_strictly() -> None:
    family = _family(alphabet_size=3)
    assert family.parse_query(" abca ") == "abca"
    assert family.parse_query('"ab"') == "ab"
    assert family.parse_query("") == "" and family.parse_query('""') == ""
    with pytest.raises(InvalidQueryError, match="'ε'"):
        family.parse_query("ε")
    with pytest.raises(InvalidQueryError, match="'d'"):
        family.parse_query("abd")
    assert family.render_output(1) == "1"
    with pytest.raises(FamilyError):
        family.render_output(True)
    assert family.output_fits(0) and not family.output_fits(2)


def test_differential_inputs_cover_short_words_first() -> None:
    family = _family()
    words = family.differential_inputs(rng_for(0, "diff"), 256)
    assert len(words) == 256
    assert words[:7] == ["", "a", "b", "aa", "ab", "ba", "bb"]
    assert family.exploration_plan("easy", 3) == ["", "a", "b"]


def test_version_space_is_refused_with_a_reason() -> None:
    with pytest.raises(FamilyError, match="lstar"):
        _family().version_space("easy")
