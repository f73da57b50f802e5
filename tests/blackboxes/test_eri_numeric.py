"""ERI number-output kinds (RSA on letter pairs, Merkle-Hellman knapsack): counts by brute
force, the table space against brute force, known vectors, templates, params."""

from __future__ import annotations

import json
import math
import random
from collections import Counter
from itertools import product
from typing import Any

import pytest

from blackboxes.families.eri._alphabet import ALPHABET, normalise, normalise_digits
from blackboxes.families.eri._kind import PREAMBLE
from blackboxes.families.eri._numeric import KnapsackKind, RsaPairsKind
from blackboxes.families.eri._table_space import SymbolTable, TableSpace, parse_numbers
from blackboxes.information import VersionSpace, entropy_bits
from oracle_bench.errors import FamilyError
from templates import render
from tests.blackboxes.restricted import restricted_blackbox

RSA, KNAPSACK = RsaPairsKind(), KnapsackKind()
KINDS = [RSA, KNAPSACK]
QUERIES = ["A", "AB", "ABC", "AAAA", "HELLO", "AB CD", "XX", "ABDHP", "ZZ Y", "QUIZ JUMP"]


def _random_plaintext(rng: random.Random, longest: int = 32) -> str:
    while True:
        raw = "".join(rng.choice(ALPHABET + "   ") for _ in range(rng.randint(1, longest)))
        text = normalise(raw)
        if text and len(text) <= longest:
            return text


def _primes(limit: int) -> list[int]:
    return [p for p in range(2, limit + 1) if all(p % d for d in range(2, int(p**0.5) + 1))]


# -- counts by brute force -------------------------------------------------------------


def test_rsa_count_is_distinct_functions_on_all_pairs() -> None:
    """Every (N, e) listed independently; functions compared on all 676 pairs (every pair is
    a two-letter plaintext, and a plaintext's output is its pairs' numbers)."""
    keys = []
    primes = _primes(1500)
    for i, p in enumerate(primes):
        for q in primes[i + 1 :]:
            if p >= 3 and 677 <= p * q <= 1500:
                phi = (p - 1) * (q - 1)
                keys += [(p * q, e) for e in range(3, 48) if e < phi and math.gcd(e, phi) == 1]
    assert len(keys) == 2620 == len(list(RSA.all_params()))
    functions = {tuple(pow(m, e, n) for m in range(676)) for n, e in keys}
    assert len(functions) == 2617
    assert 2**RSA.log2_h == pytest.approx(2617)
    assert len(RSA.distinct) == 2617 and len({(p["n"], p["e"]) for p in RSA.distinct}) == 2617


def test_rsa_duplicates_are_exponents_equal_modulo_carmichael() -> None:
    seen: dict[tuple[int, ...], tuple[int, int]] = {}
    dupes = []
    for params in RSA.all_params():
        n, e = int(params["n"]), int(params["e"])
        row = tuple(pow(m, e, n) for m in range(676))
        if row in seen:
            dupes.append((seen[row], (n, e)))
        seen.setdefault(row, (n, e))
    assert len(dupes) == 3
    for (n1, e1), (n2, e2) in dupes:
        p = next(d for d in range(3, n1) if n1 % d == 0)
        lam = math.lcm(p - 1, n1 // p - 1)
        assert n1 == n2 and (e2 - e1) % lam == 0
        assert {"n": n2, "e": e2} not in RSA.distinct  # the first key is the canonical one


def test_knapsack_count_is_distinct_weight_vectors() -> None:
    keys = []
    for first in (1, 2):
        for gaps in product((1, 2), repeat=4):
            s = [first]
            for gap in gaps:
                s.append(sum(s) + gap)
            for margin in (1, 2, 3, 4):
                q = sum(s) + margin
                keys += [(s, q, r) for r in range(2, q) if math.gcd(r, q) == 1]
    assert len(keys) == 3660
    publics = {tuple(r * v % q for v in s) for s, q, r in keys}
    assert len(publics) == 3491
    # Distinct weights are distinct functions: A, B, D, H, P (1, 2, 4, 8, 16) show each weight.
    encs = {KNAPSACK.encrypt({"weights": list(w)})("PHDBA") for w in publics}
    assert len(encs) == 3491
    assert 2**KNAPSACK.log2_h == pytest.approx(3491)
    assert {tuple(p["weights"]) for p in KNAPSACK.distinct} == publics


# -- known vectors -----------------------------------------------------------------------


def _power_mod(m: int, e: int, n: int) -> int:
    c = 1
    for _ in range(e):
        c = c * m % n
    return c


def test_rsa_known_vectors() -> None:
    params = RSA.check_params({"n": 713, "e": 13})  # 713 = 23 * 31, phi = 660
    enc = RSA.encrypt(params)
    # HI: m = 26*7 + 8 = 190; A is padded to AX: m = 23; AB: m = 1; AA: m = 0.
    assert enc("HI") == str(_power_mod(190, 13, 713))
    assert enc("A") == str(_power_mod(23, 13, 713))
    assert enc("AB AA") == "1 0"  # spaces dropped, an even count is not padded
    assert enc("AB AAX") == f"1 0 {_power_mod(26 * 23 + 23, 13, 713)}"  # AB, AA, XX
    assert enc("AB A") == enc("ABAX") == f"1 {_power_mod(23, 13, 713)}"
    # By hand: 190^2 = 36100 = 450, 190^4 = 450^2 = 8, 190^8 = 64 (mod 713), and
    # 190^13 = 190^8 * 190^4 * 190 = 64 * 8 * 190 = 97280 = 136 * 713 + 312.
    assert enc("HI") == "312"
    assert enc("ZZ" * 16) == " ".join([str(_power_mod(675, 13, 713))] * 16)
    assert normalise_digits(enc("QUICK BROWN FOX")) == enc("QUICK BROWN FOX")
    assert {"n": 713, "e": 13} in RSA.distinct


def test_knapsack_known_vector() -> None:
    # s = (1, 2, 4, 8, 16), q = 32, r = 3: w = (3, 6, 12, 24, 48 mod 32 = 16).
    params = KNAPSACK.check_params({"weights": [3, 6, 12, 24, 16]})
    enc = KNAPSACK.encrypt(params)
    # A = 1 = 00001 -> 16; C = 3 = 00011 -> 24 + 16; Z = 26 = 11010 -> 3 + 6 + 24.
    assert enc("AC Z") == "16 40 33"
    assert enc("P") == "3" and enc("H") == "6" and enc("D") == "12" and enc("B") == "24"
    assert enc("O") == str(6 + 12 + 24 + 16)  # O = 15 = 01111


def test_describe_states_the_key() -> None:
    text = RSA.describe({"n": 713, "e": 13})
    assert text.startswith(PREAMBLE) and "N = 713" in text and "e = 13" in text
    assert "append one X" in text and text.endswith("Output: the resulting string.")
    assert RSA.steps({"n": 713, "e": 13})[0].startswith("RSA on letter pairs")
    text = KNAPSACK.describe({"weights": [3, 6, 12, 24, 16]})
    assert "w1 = 3, w2 = 6, w3 = 12, w4 = 24, w5 = 16" in text and "C becomes 40" in text
    assert RSA.output_format == KNAPSACK.output_format == "digits"


# -- the table space against brute force -----------------------------------------------


def _compare(space: VersionSpace, fns: list[Any], queries: list[str]) -> None:
    assert space.log2_count() == pytest.approx(math.log2(len(fns)), abs=1e-9)
    for x in queries:
        counts = Counter(f(x) for f in fns)
        pred = space.predictive(x)
        total = len(fns)
        for y, c in counts.items():
            assert pred.prob(y) == pytest.approx(c / total, abs=1e-12), (x, y)
        assert pred.entropy == pytest.approx(
            entropy_bits(c / total for c in counts.values()), abs=1e-9
        )
        support = pred.support(100_000)
        assert support is not None and set(support) == set(counts)
        assert all(p == pytest.approx(counts[y] / total) for y, (_, p) in support.items())
        best = max(counts.values())
        top = pred.top(5)
        assert counts[top[0]] == best and len(top) == min(5, len(counts))
        assert [counts[y] for y in top] == sorted((counts[y] for y in top), reverse=True)
        assert pred.top(5) == top


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_space_matches_brute_force(kind: Any) -> None:
    fns = [kind.encrypt(p) for p in kind.distinct]
    space = kind.space()
    _compare(space, fns, QUERIES)
    secret = kind.encrypt(kind.distinct[len(fns) // 3])
    for x0 in ("A", "MOON"):
        observed = space.observe(x0, secret(x0))
        kept = [f for f in fns if f(x0) == secret(x0)]
        _compare(observed, kept, QUERIES)
        assert observed.observe("ZZZZZ", secret("ZZZZZ")).log2_count() <= math.log2(len(kept))


def test_knapsack_basis_matches_full_grouping() -> None:
    """The independent-letters shortcut gives the same predictive as grouping on all letters."""
    rows = KNAPSACK._enumeration[1]
    plain = TableSpace(SymbolTable(rows, KNAPSACK._symbols))  # no basis: groups on every letter
    fast = KNAPSACK.space()
    for x in [*QUERIES, "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "CCC G", "ABC", "ZYXWV", "AP"]:
        a, b = plain.predictive(x), fast.predictive(x)
        assert a.entropy == pytest.approx(b.entropy, abs=1e-12), x
        sa, sb = a.support(100_000), b.support(100_000)
        assert sa is not None and sb is not None and set(sa) == set(sb), x
        assert all(sa[y][1] == pytest.approx(sb[y][1], abs=1e-15) for y in sa)
        assert a.top(4) == b.top(4)


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_history_invariants(kind: Any) -> None:
    """The true function stays consistent; realised information sums to the count drop."""
    for seed in range(8):
        rng = random.Random(seed)
        params = kind.sample_params(rng)
        enc = kind.encrypt(params)
        space = kind.space()
        realised = 0.0
        for t in range(5):
            x = QUERIES[(seed + t) % len(QUERIES)] if t % 2 == 0 else _random_plaintext(rng, 8)
            y = enc(x)
            pred = space.predictive(x)
            assert pred.entropy <= space.log2_count() + 1e-9
            assert pred.entropy <= kind.log2_y(len(x)) + 1e-9
            p = pred.prob(y)
            assert p > 0.0, (params, x, y)
            realised -= math.log2(p)
            space = space.observe(x, y)
            assert realised == pytest.approx(kind.log2_h - space.log2_count(), abs=1e-6)
            assert space.predictive(x).prob(y) == pytest.approx(1.0)
            assert space.predictive(x).top(1) == [y]


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
@pytest.mark.parametrize(
    "y", ["", " ", "01 2", "1  2", " 1", "1 ", "-1", "1,2", "1 2 3 4 5 6", "\u0661", "12a", 7, None]
)
def test_hostile_outputs_empty_the_space(kind: Any, y: object) -> None:
    space = kind.space()
    assert space.observe("ABCD", y).log2_count() == -math.inf
    assert space.predictive("ABCD").prob(y) == 0.0
    assert space.observe(7, "1").log2_count() == -math.inf
    assert space.observe("abc", "1 2").log2_count() == -math.inf
    assert space.predictive("ab1").support() == {}


def test_repeated_symbol_with_two_numbers_is_impossible() -> None:
    enc = KNAPSACK.encrypt(KNAPSACK.distinct[0])
    a = enc("A")
    assert KNAPSACK.space().observe("AA", f"{a} {int(a) + 1}").log2_count() == -math.inf
    assert KNAPSACK.space().predictive("AA").prob(f"{a} {int(a) + 1}") == 0.0
    assert KNAPSACK.space().predictive("AA").prob(f"{a} {a}") > 0.0
    rsa = RSA.encrypt(RSA.distinct[5])
    c = int(rsa("HI"))
    assert RSA.space().predictive("HIHI").prob(f"{c} {c + 1}") == 0.0
    assert RSA.space().predictive("HIHI").prob(f"{c} {c}") > 0.0


def test_parse_numbers() -> None:
    assert parse_numbers("0 10 7") == [0, 10, 7]
    for bad in ("", "00", "1 01", "1\t2", "1  2", "+1", "\u0663", None, 3):
        assert parse_numbers(bad) is None


def test_log2_y() -> None:
    assert RSA.log2_y(8) == pytest.approx(4 * math.log2(1500))
    assert RSA.log2_y(7) == RSA.log2_y(8) and RSA.log2_y(32) == pytest.approx(16 * math.log2(1500))
    largest = max(max(row) for row in KNAPSACK._enumeration[1])
    assert KNAPSACK.log2_y(10) == pytest.approx(10 * math.log2(largest + 1))
    assert KNAPSACK.log2_y(32) >= 32 * 4.7 and RSA.log2_y(32) >= 32 * 4.7


# -- templates, sampling, params -------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_template_matches_reference(kind: Any) -> None:
    for seed in range(8):
        rng = random.Random(200 + seed)
        params = kind.sample_params(rng)
        enc = kind.encrypt(params)
        code = render(kind.template_name, **kind.context(params))
        assert "import" not in code and "_" not in "".join(
            tok for tok in code.replace("\n", " ").split() if not tok.startswith(('"', "'"))
        )
        namespace: dict[str, Any] = {}
        exec(code, namespace)
        plain = namespace["blackbox"]
        restricted = restricted_blackbox(code)
        inputs = ["A", "Z", "AB", "ABC", "A B", "Z" * 32, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"]
        inputs += [_random_plaintext(rng) for _ in range(150)]
        for i, x in enumerate(inputs):
            assert plain(x) == enc(x), (kind.name, params, x)
            if i < 40:
                assert restricted(x) == enc(x)


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_sampling_is_deterministic_canonical_and_round_trips(kind: Any) -> None:
    for seed in range(20):
        a, b = kind.sample_params(random.Random(seed)), kind.sample_params(random.Random(seed))
        assert a == b and a in kind.distinct
        assert kind.check_params(a) == a
        assert kind.check_params(dict(a)) == a


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_sampling_is_uniform_over_functions(kind: Any) -> None:
    rng = random.Random(11)
    draws = 20_000
    index = {json.dumps(p, sort_keys=True): i for i, p in enumerate(kind.distinct)}
    counts = Counter(
        index[json.dumps(kind.sample_params(rng), sort_keys=True)] for _ in range(draws)
    )
    half = len(kind.distinct) // 2
    low = sum(c for i, c in counts.items() if i < half)
    expected = draws * half / len(kind.distinct)
    assert abs(low - expected) < 4 * math.sqrt(draws * 0.25)


@pytest.mark.parametrize(
    "params",
    [
        {"n": 713},
        {"n": 713, "e": 14},  # not coprime to phi = 660
        {"n": 713, "e": 5},
        {"n": 713, "e": 49},  # outside the exponent range
        {"n": 713, "e": 1},
        {"n": 713, "e": True},
        {"n": 713, "e": "13"},
        {"n": 713.0, "e": 13},
        {"n": 1009, "e": 13},  # prime
        {"n": 1331, "e": 13},  # 11^3
        {"n": 841, "e": 13},  # 29^2: P = Q
        {"n": 802, "e": 3},  # 2 * 401: even prime
        {"n": 667, "e": 13},  # 23 * 29 < 677
        {"n": 1501, "e": 7},  # 19 * 79 > 1500
    ],
)
def test_rsa_check_params_rejects(params: dict[str, Any]) -> None:
    with pytest.raises(FamilyError):
        RSA.check_params(params)


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"weights": [3, 6, 12, 24]},
        {"weights": [3, 6, 12, 24, 16, 1]},
        {"weights": [3, 6, 12, 24, 1000]},  # no key of the range gives it
        {"weights": [0, 6, 12, 24, 16]},
        {"weights": [3, 6, 12, 24, True]},
        {"weights": [3.0, 6, 12, 24, 16]},
        {"weights": "3 6 12 24 16"},
        {"weights": (3, 6, 12, 24, 16)},
    ],
)
def test_knapsack_check_params_rejects(params: dict[str, Any]) -> None:
    with pytest.raises(FamilyError):
        KNAPSACK.check_params(params)


def test_reference_rejects_invalid_plaintext() -> None:
    for kind in KINDS:
        enc = kind.encrypt(kind.distinct[0])
        for bad in ("abc", "A1", " "):
            with pytest.raises(FamilyError):
                enc(bad)
