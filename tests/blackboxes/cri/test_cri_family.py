"""The CRI family: registration, protocol, parsing, templates, information, determinism."""

from __future__ import annotations

import math
import random

import pytest

from blackboxes.families import family_for_box, get_family
from blackboxes.families.cri import KINDS, LEVEL_KINDS, CircuitRuleInference, _inputs, bits_of
from blackboxes.families.cri._factored import DagKind
from blackboxes.information import expected_information, realised_information
from oracle_bench.errors import FamilyError, InvalidQueryError, UnknownNameError, UsageError
from templates import render
from tests.blackboxes.restricted import restricted_blackbox

CRI = get_family("CRI")


def served(level: str, kind: str, mode: str = "outputs") -> tuple[CircuitRuleInference, object]:
    family = CRI.configure(output_mode=mode)
    rule = family.sample_rule(random.Random(f"{level}/{kind}"), level, kind)
    return family.for_rule(rule), rule


def test_registered_with_eight_kinds_per_level_and_fixed_widths() -> None:
    assert isinstance(CRI, CircuitRuleInference)
    for level, bits in (("easy", 8), ("hard", 10)):
        assert len(LEVEL_KINDS[level]) >= 8
        assert {KINDS[k].n for k in LEVEL_KINDS[level]} == {bits}
        # 20 queries see under 8% (easy) / 2% (hard) of the truth table.
        assert 20 / 2**bits < 0.08
    assert set(LEVEL_KINDS["easy"]).isdisjoint(LEVEL_KINDS["hard"])


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_kinds_circuit_equals_its_reference_on_every_input(kind: str) -> None:
    spec = KINDS[kind]
    rng = random.Random(kind)
    for _ in range(5):
        params = spec.check_params(spec.sample_params(rng))
        circuit, direct = spec.circuit(params), spec.direct(params)
        assert len(circuit.gates) == spec.gate_count
        tables = circuit.tables()
        for index in range(1 << spec.n):
            x = bits_of(index, spec.n)
            y = direct(x)
            assert circuit.evaluate(x) == y
            assert "".join(str((t >> index) & 1) for t in tables) == y


def test_affine_and_minterm_references_on_hand_examples() -> None:
    parity = KINDS["parity"]
    fn = parity.direct({"rows": ["10100000"], "flip": "1"})
    assert [fn(x) for x in ("00000000", "10000000", "10100000", "00100001")] == ["1", "0", "1", "0"]
    dnf = KINDS["dnf"]
    terms = [bits_of(i, 10) for i in range(8)]
    fn = dnf.direct(dnf.check_params({"minterms": terms}))
    assert fn("0000000000") == "1" and fn("0001000000") == "0"
    assert dnf.log2_h("outputs") == pytest.approx(math.log2(math.comb(1024, 8)))


def test_dag_draws_are_never_near_constant() -> None:
    spec = KINDS["small_dag"]
    assert isinstance(spec, DagKind)
    rng = random.Random(0)
    for _ in range(20):
        tables = spec.circuit(spec.sample_params(rng)).tables()
        for t in tables:
            assert t not in (0, (1 << 256) - 1)
            assert sum(spec._depends(t, i) for i in range(8)) >= 4
    space = spec.hypothesis("outputs")
    assert space.exact is False and space.low is not None and space.high is not None
    assert space.low <= space.high and space.t_info == math.ceil(space.low / 2)


@pytest.mark.parametrize(
    ("text", "bits"),
    [
        ("10110010", "10110010"),
        ("[1,0,1,1,0,0,1,0]", "10110010"),
        (" 1 0 1 1 0 0 1 0 ", "10110010"),
        ("(1, 0, 1, 1; 0, 0, 1, 0)", "10110010"),
        ("1011 0010", "10110010"),
    ],
)
def test_queries_are_parsed_leniently(text: str, bits: str) -> None:
    family, _ = served("easy", "parity")
    assert family.parse_query(text) == bits
    assert family.parse_query(family.format_query(bits)) == bits


@pytest.mark.parametrize(
    "text",
    ["1011001", "101100101", "[10, 1, 1, 0, 0, 1, 0, 1]", "1011x010", "2011 0010", "", "True"],
)
def test_queries_are_strict_about_meaning(text: str) -> None:
    family, _ = served("easy", "parity")
    with pytest.raises(InvalidQueryError):
        family.parse_query(text)


def test_answers_normalise_to_the_bits() -> None:
    family, _ = served("hard", "adder")
    assert family.normalise_answer("[0, 1, 1, 0, 0, 1]") == "011001"
    assert family.check_answer("011001", "0 1 1 0 0 1")
    assert not family.check_answer("011001", "011000")
    assert family.output_fits("011001") and not family.output_fits("01100")


@pytest.mark.parametrize("level", ["easy", "hard"])
@pytest.mark.parametrize("mode", ["outputs", "gates"])
def test_templates_match_the_reference_under_restricted_python(level: str, mode: str) -> None:
    family = CRI.configure(output_mode=mode)
    for kind in family.kinds(level):
        rule = family.sample_rule(random.Random(kind), level, kind)
        box = family.for_rule(rule)
        name, context = box.code_template(rule)
        blackbox = restricted_blackbox(render(name, **context))
        for x in box.differential_inputs(random.Random(1), 64):
            assert blackbox(x) == rule(x), (kind, x)
            assert box.output_fits(rule(x))


def test_gates_mode_offers_only_kinds_with_a_gate_level_space() -> None:
    gates = CRI.configure(output_mode="gates")
    assert set(gates.kinds("hard")) < set(CRI.kinds("hard"))
    assert "dnf" not in gates.kinds("hard")
    family, rule = served("easy", "select", "gates")
    assert family.for_rule(rule).settings.width == KINDS["select"].gate_count
    assert "g0 =" in rule.description


def test_interface_round_trips_and_bad_interfaces_are_refused() -> None:
    family, rule = served("hard", "comparator")
    interface = CRI.interface_of(rule)
    assert interface == {"inputs": 10, "outputs": 3, "mode": "outputs"}
    info, facts = CRI.box_records("CRI-hard-0000", rule)
    assert family_for_box(info).settings == family.settings
    assert facts.log2_y == 3.0 and facts.t_info == 4
    for bad in (
        {"inputs": 0, "outputs": 1, "mode": "outputs"},
        {"inputs": 8, "outputs": 1},
        {"inputs": 8, "outputs": 1, "mode": "outputs", "extra": 1},
    ):
        with pytest.raises(FamilyError):
            CRI.for_interface(bad)
    with pytest.raises(UsageError):
        CRI.configure(output_mode="wires")
    with pytest.raises(UnknownNameError):
        CRI.configure(output_mode="gates").sample_rule(random.Random(0), "hard", "dnf")


@pytest.mark.parametrize("level", ["easy", "hard"])
def test_information_invariants_hold_on_random_histories(level: str) -> None:
    for kind in CRI.kinds(level):
        family, rule = served(level, kind)
        space = family.version_space(level)
        log2_h = KINDS[kind].log2_h("outputs")
        own = family.version_space(level, kind)
        assert own.log2_count() == pytest.approx(log2_h) or not own.exact
        total = 0.0
        rng = random.Random(kind)
        for x in family.exploration_plan(level, 3) + [family.random_query(rng) for _ in range(3)]:
            h = expected_information(space, x)
            assert h <= family.settings.width + 1e-9
            assert h <= space.log2_count() + 1e-9
            y = rule(x)
            gain = realised_information(own, x, y)
            assert math.isfinite(gain)
            total += gain
            space, own = space.observe(x, y), own.observe(x, y)
        assert total <= own.log2_count() + total + 1e-9
        if own.exact:
            assert total <= log2_h + 1e-6
            assert log2_h - total == pytest.approx(own.log2_count())


def test_held_out_inputs_exclude_queries_and_plans_are_fixed() -> None:
    family, _ = served("hard", "popcount")
    asked = family.exploration_plan("hard", 20)
    assert asked == family.exploration_plan("hard", 20) and len(set(asked)) == 20
    # A reordering of the fixed candidates: zeros, ones, units, holes, fixed random ones.
    candidates = _inputs.exploration_plan(4 * 10 + 64, 10)
    assert set(family.exploration_plan("hard", len(candidates))) == set(candidates)
    # Its first vectors split the prior's draws: no two of the first 4 popcount alike.
    assert len({x.count("1") for x in asked[:4]}) == 4
    items = family.test_inputs(random.Random(5), 10, asked)
    assert len(set(items)) == 10 and not set(items) & set(asked)
    pool = family.query_pool(random.Random(0), "hard", 30, asked)
    assert len(pool) == 30 and not set(pool) & set(asked)


def test_same_seed_same_rules() -> None:
    for level in ("easy", "hard"):
        a = [CRI.sample_rule(random.Random(7), level).params for _ in range(3)]
        b = [CRI.sample_rule(random.Random(7), level).params for _ in range(3)]
        assert a == b
