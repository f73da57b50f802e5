"""ERI case-sensitive kinds (index shift and positional keyword, mod 52): counts by brute
force (Fine and Wilf on a reduced alphabet), spaces against brute force, templates, params."""

from __future__ import annotations

import math
import random
from collections import Counter
from itertools import product
from typing import Any

import pytest

from blackboxes.families.eri._alphabet import CASED_ALPHABET, normalise_cased
from blackboxes.families.eri._cased import CASED_PREAMBLE, Shift52Kind, Vigenere52Kind
from blackboxes.families.eri._index_shift_space import IndexShiftSpace
from blackboxes.families.eri._periodic import is_primitive
from blackboxes.families.eri._vigenere_space import VigenereLengthSpace, primitive_count
from blackboxes.information import VersionSpace, entropy_bits
from oracle_bench.errors import FamilyError
from templates import render
from tests.blackboxes.restricted import restricted_blackbox

SHIFT, VIG = Shift52Kind(), Vigenere52Kind()
KINDS = [SHIFT, VIG]
QUERIES = ["A", "a", "Ab", "zZ", "aBc", "Hello World", "AAAA aaaa", "zyxwvutsRQ", "q Q q"]


def _random_cased(rng: random.Random, longest: int = 32) -> str:
    while True:
        raw = "".join(rng.choice(CASED_ALPHABET + "  ") for _ in range(rng.randint(1, longest)))
        text = normalise_cased(raw)
        if text:
            return text


def _shift(text: str, shifts: list[int], alphabet: str = CASED_ALPHABET) -> str:
    """Letter i of text shifted by shifts[i] (an independent reference)."""
    out, i = [], 0
    for ch in text:
        if ch == " ":
            out.append(ch)
        else:
            out.append(alphabet[(alphabet.index(ch) + shifts[i]) % len(alphabet)])
            i += 1
    return "".join(out)


def _compare(space: VersionSpace, fns: list[Any], queries: list[str], listed: bool) -> None:
    assert space.log2_count() == pytest.approx(math.log2(len(fns)), abs=1e-9)
    for x in queries:
        counts = Counter(f(x) for f in fns)
        pred = space.predictive(x)
        total = len(fns)
        for y, c in list(counts.items())[:3000]:
            assert pred.prob(y) == pytest.approx(c / total, abs=1e-12), (x, y)
        assert pred.entropy == pytest.approx(
            entropy_bits(c / total for c in counts.values()), abs=1e-9
        )
        support = pred.support(100_000)
        if listed:
            assert support is not None and set(support) == set(counts)
        top = pred.top(4)
        assert counts[top[0]] == max(counts.values()) and len(top) == min(4, len(counts))
        assert pred.top(4) == top


# -- shift52 -------------------------------------------------------------------------------


def test_shift52_count_is_distinct_functions() -> None:
    """A function on plaintexts of 8+ letters is its shift sequence on positions 0..7."""
    seqs = {tuple((a + b * i) % 52 for i in range(8)) for a in range(52) for b in range(1, 52)}
    assert len(seqs) == 52 * 51 == 2**SHIFT.log2_h
    with_plain = {tuple((a + b * i) % 52 for i in range(8)) for a in range(52) for b in range(52)}
    assert len(with_plain) == 52 * 52  # b = 0 would add the 52 plain shifts (left out)
    two = {((a + 0) % 52, (a + b) % 52) for a in range(52) for b in range(1, 52)}
    assert len(two) == 2652  # already two letters tell every key apart
    assert len(list(SHIFT.all_params())) == 2652


def test_shift52_known_vectors() -> None:
    enc = SHIFT.encrypt({"start": 1, "step": 2})
    # Letter i gets 1 + 2i: H=7 -> 8 I; e=30 -> 33 h; l=37 -> 42 q; l -> 44 s; o=40 -> 49 x;
    # W=22 -> 33 h; o=40 -> 53 = 1 B; r=43 -> 58 = 6 G; l=37 -> 54 = 2 C; d=29 -> 48 w.
    assert enc("Hello World") == "Ihqsx hBGCw"
    assert enc("z") == "A" and enc("Z") == "a"
    assert SHIFT.encrypt({"start": 51, "step": 51})("AAA") == "zyx"
    assert enc("a b") == "b e"


def test_shift52_space_matches_brute_force() -> None:
    fns = [SHIFT.encrypt(p) for p in SHIFT.all_params()]
    _compare(SHIFT.space(), fns, QUERIES, listed=True)
    secret = SHIFT.encrypt({"start": 40, "step": 7})
    for x0 in ("q", "Qr", "a b c"):
        space = SHIFT.space().observe(x0, secret(x0))
        kept = [f for f in fns if f(x0) == secret(x0)]
        _compare(space, kept, QUERIES, listed=True)
    assert IndexShiftSpace.prior(CASED_ALPHABET).observe("ab", "ab").log2_count() == -math.inf


# -- vigenere52 ----------------------------------------------------------------------------


def _periodic_sequences(q: int, lengths: tuple[int, ...], n: int) -> tuple[int, Counter[Any]]:
    """(number of primitive keys over q shifts, their shift sequences on n positions)."""
    keys, seqs = 0, Counter[Any]()
    for length in lengths:
        for key in product(range(q), repeat=length):
            if is_primitive("".join(chr(65 + v) for v in key)):
                keys += 1
                seqs[tuple(key[i % length] for i in range(n))] += 1
    return keys, seqs


@pytest.mark.parametrize("q", [2, 3, 4])
def test_fine_wilf_on_a_reduced_alphabet(q: int) -> None:
    """Lengths 3-5: every primitive key is its own function on 8 letters; with length 6 a
    5-key and a 6-key agree on 8 letters (but not on 10), so 6 is left out."""
    keys, seqs = _periodic_sequences(q, (3, 4, 5), 8)
    assert len(seqs) == keys == sum(primitive_count((-1,) * n, q) for n in (3, 4, 5))
    keys6, seqs6 = _periodic_sequences(q, (3, 4, 5, 6), 8)
    assert len(seqs6) < keys6
    assert len(_periodic_sequences(q, (3, 4, 5, 6), 10)[1]) == keys6
    short = _periodic_sequences(q, (3, 4, 5), 7)[1]
    assert len(short) < keys  # 7 letters are not enough for lengths 4 and 5


def test_vigenere52_count() -> None:
    sizes = [52**3 - 52, 52**4 - 52**2, 52**5 - 52]
    assert [primitive_count((-1,) * n, 52) for n in (3, 4, 5)] == sizes
    assert 2**VIG.log2_h == pytest.approx(sum(sizes))
    assert sum(sizes) == 387_653_448
    # Moebius for 26 is unchanged (the existing Vigenere kind's count).
    assert primitive_count((-1,) * 4) == 26**4 - 26**2


def test_vigenere52_known_vectors() -> None:
    enc = VIG.encrypt({"key": "bAz"})  # shifts 27, 0, 51
    assert enc("Hello World") == _shift("Hello World", [27, 0, 51] * 4)
    # a=26: 26+27 = 53 = 1 B, 26+0 = a, 26+51 = 77 = 25 Z.
    assert enc("AAA") == "bAz" and enc("aaa") == "BaZ" and enc("A A A A") == "b A z b"
    assert enc("zzzz") == "azya"  # z=51: 78 = 26 a, 51 z, 102 = 50 y, 78 = 26 a


@pytest.mark.parametrize(("length", "observed"), [(3, ""), (3, "Ab"), (4, "xY"), (5, "abC")])
def test_vigenere52_length_matches_brute_force(length: int, observed: str) -> None:
    secret = [3, 40, 3, 29, 11][:length]
    space: VersionSpace = VigenereLengthSpace.prior(length, CASED_ALPHABET)
    if observed:
        space = space.observe(observed, _shift(observed, secret))
    head = tuple(secret[: len(observed)])
    keys = [
        head + rest
        for rest in product(range(52), repeat=length - len(observed))
        if is_primitive("".join(CASED_ALPHABET[v] for v in head + rest))
    ]
    fns = [lambda t, k=k: _shift(t, [k[i % len(k)] for i in range(32)]) for k in keys]
    listed = length - len(observed) <= 2
    _compare(space, fns, ["A", "zB", "a A", "AbCdEfGh"], listed=listed)


def test_vigenere52_union_on_a_small_alphabet_matches_brute_force() -> None:
    """On 8+ letters the lengths never share an output: the union's entropy is exact."""
    alphabet = "aBc"
    from blackboxes.families.eri._spaces import UnionSpace

    parts = []
    fns: list[Any] = []
    for n in (3, 4, 5):
        size = primitive_count((-1,) * n, 3)
        parts.append((f"length {n}", math.log2(size), VigenereLengthSpace.prior(n, alphabet)))
        for key in product(range(3), repeat=n):
            if is_primitive("".join(chr(65 + v) for v in key)):
                fns.append(lambda t, k=key: _shift(t, [k[i % len(k)] for i in range(32)], alphabet))
    space = UnionSpace.build(parts, exact=True)
    _compare(space, fns, ["aaaaaaaa", "aBcaBcaB c", "cccc cccc cc"], listed=True)
    secret = fns[100]
    observed = space.observe("aB", secret("aB"))
    kept = [f for f in fns if f("aB") == secret("aB")]
    _compare(observed, kept, ["aaaaaaaa", "BBBBBBBBBB"], listed=True)
    for x in ("a", "aB", "aBc"):  # short queries: probabilities exact even where lengths overlap
        counts = Counter(f(x) for f in kept)
        for y, c in counts.items():
            assert observed.predictive(x).prob(y) == pytest.approx(c / len(kept), abs=1e-12)


# -- both kinds -----------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_history_invariants(kind: Any) -> None:
    for seed in range(10):
        rng = random.Random(seed)
        params = kind.sample_params(rng)
        enc = kind.encrypt(params)
        space = kind.space()
        assert space.log2_count() == pytest.approx(kind.log2_h, abs=1e-9)
        realised = 0.0
        for t in range(5):
            x = QUERIES[(seed + t) % len(QUERIES)] if t % 2 == 0 else _random_cased(rng, 8)
            y = enc(x)
            pred = space.predictive(x)
            assert pred.entropy <= space.log2_count() + 1e-9
            # Known limit (as for the 26-letter Vigenere): with 3 to 7 letters the key
            # lengths' outputs may coincide, and a length whose support is too large to list
            # is counted as disjoint, so the entropy may exceed the truth by at most the
            # entropy of the length posterior (log2 3).
            letters = sum(ch != " " for ch in x)
            slack = math.log2(3) if kind is VIG and 3 <= letters <= 7 else 1e-9
            assert pred.entropy <= kind.log2_y(len(x)) + slack
            p = pred.prob(y)
            assert p > 0.0, (params, x, y)
            realised -= math.log2(p)
            space = space.observe(x, y)
            assert realised == pytest.approx(kind.log2_h - space.log2_count(), abs=1e-6)
            assert space.predictive(x).prob(y) == pytest.approx(1.0)
            assert space.predictive(x).top(1) == [y]


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
@pytest.mark.parametrize("y", ["", "ABCD", "Ab1d", "Abcde", "Ab  ", 7, None, "\u00e9bcd"])
def test_hostile_outputs_empty_the_space(kind: Any, y: object) -> None:
    space = kind.space()
    assert space.observe("Ab D", y).log2_count() == -math.inf
    assert space.predictive("Ab D").prob(y) == 0.0
    assert space.observe("A1", "A1").log2_count() == -math.inf
    assert space.observe(3, "A").log2_count() == -math.inf
    assert space.predictive("A1").top(3) == []


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_template_matches_reference(kind: Any) -> None:
    for seed in range(8):
        rng = random.Random(300 + seed)
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
        inputs = ["A", "z", "Z", "a", "Zz aA", "z" * 32, CASED_ALPHABET[:32], CASED_ALPHABET[20:]]
        inputs += [_random_cased(rng) for _ in range(150)]
        for i, x in enumerate(inputs):
            assert plain(x) == enc(x), (kind.name, params, x)
            if i < 40:
                assert restricted(x) == enc(x)


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_sampling_deterministic_and_round_trips(kind: Any) -> None:
    for seed in range(30):
        a, b = kind.sample_params(random.Random(seed)), kind.sample_params(random.Random(seed))
        assert a == b and kind.check_params(a) == a
        text = kind.describe(a)
        assert text.startswith(CASED_PREAMBLE) and text.endswith("Output: the resulting string.")
        assert kind.steps(a) == [
            text.removeprefix(CASED_PREAMBLE).removesuffix("Output: the resulting string.").strip()
        ]
    assert kind.output_format == "cased"


def test_sampling_is_uniform() -> None:
    rng = random.Random(8)
    draws = 20_000
    lengths = Counter(len(str(VIG.sample_params(rng)["key"])) for _ in range(draws))
    p5 = (52**5 - 52) / 387_653_448
    assert abs(lengths[5] - draws * p5) < 4 * math.sqrt(draws * p5 * (1 - p5))
    assert lengths[3] + lengths[4] + lengths[5] == draws and lengths[4] > 0
    steps = Counter(SHIFT.sample_params(rng)["step"] for _ in range(draws))
    assert set(steps) == set(range(1, 52))
    assert max(steps.values()) - min(steps.values()) < 8 * math.sqrt(draws / 51)


def test_describe_states_the_key() -> None:
    text = VIG.describe({"key": "bAz"})
    assert "key bAz" in text and "shifts 27, 0, 51" in text and "mod 52" in text
    text = SHIFT.describe({"start": 1, "step": 2})
    assert "(p + 1 + 2 * i) mod 52" in text


@pytest.mark.parametrize(
    "params",
    [
        {"start": 52, "step": 1},
        {"start": 0, "step": 0},
        {"start": 0, "step": 52},
        {"start": -1, "step": 3},
        {"start": True, "step": 3},
        {"start": "1", "step": 3},
        {"step": 3},
    ],
)
def test_shift52_check_params_rejects(params: dict[str, Any]) -> None:
    with pytest.raises(FamilyError):
        SHIFT.check_params(params)


@pytest.mark.parametrize(
    "key", ["ab", "abcdef", "abab", "aAaA", "aaa", "ab1", "ab c", "\u00e9bc", 7, None, ["a", "b"]]
)
def test_vigenere52_check_params_rejects(key: object) -> None:
    with pytest.raises(FamilyError):
        VIG.check_params({"key": key})


def test_vigenere52_case_matters_in_keys() -> None:
    assert VIG.check_params({"key": "aAa"}) == {"key": "aAa"}  # primitive: a != A
    assert VIG.check_params({"key": "abAB"}) == {"key": "abAB"}


def test_reference_rejects_invalid_plaintext() -> None:
    for kind in KINDS:
        enc = kind.encrypt(kind.sample_params(random.Random(0)))
        with pytest.raises(FamilyError):
            enc("Ab1")
