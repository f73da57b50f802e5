"""ERI autokey52: the plaintext autokey mod 52 over A-Z a-z (case kept), primers of 3-8 letters.

Counts by brute force on reduced alphabets (and the proof's plaintexts on all 52 letters),
the alphabet-generic AutokeySpace against brute force on reduced mixed-case alphabets and
on 52 letters with mostly fixed primers, histories, the template, sampling and params.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Sequence
from functools import partial
from itertools import product
from typing import Any

import pytest

from blackboxes.families.eri._alphabet import CASED_ALPHABET, MAX_LEN, normalise_cased
from blackboxes.families.eri._autokey import AUTOKEY_LENGTHS, Autokey52Kind, autokey
from blackboxes.families.eri._autokey_space import AutokeySpace
from blackboxes.families.eri._cased import CASED_PREAMBLE
from blackboxes.families.eri._inputs import InputShape, differential_inputs
from blackboxes.information import Predictive, VersionSpace, entropy_bits
from oracle_bench.errors import FamilyError
from templates import render
from tests.blackboxes.restricted import restricted_blackbox

KIND = Autokey52Kind()
TOTAL = sum(52**n for n in AUTOKEY_LENGTHS)
Fn = Callable[[str], str]


def _random_cased(rng: random.Random, letters: str = CASED_ALPHABET, longest: int = 32) -> str:
    while True:
        raw = "".join(
            " " if rng.random() < 0.15 else rng.choice(letters)
            for _ in range(rng.randint(1, longest))
        )
        text = normalise_cased(raw)
        if text:
            return text


def _independent(primer: Sequence[int], x: str, letters: str) -> str:
    """A second reference, written from the spec: numbers, not the module's code."""
    q = len(letters)
    nums = [letters.index(c) for c in x if c != " "]
    key = list(primer) + nums  # s_i = primer_i, then p_(i-L)
    out = iter([(p + key[i]) % q for i, p in enumerate(nums)])
    return "".join(" " if c == " " else letters[next(out)] for c in x)


def _keys(q: int, lengths: Sequence[int]) -> list[tuple[int, ...]]:
    return [k for n in lengths for k in product(range(q), repeat=n)]


def _fns(letters: str, lengths: Sequence[int]) -> list[Fn]:
    return [partial(_independent, k, letters=letters) for k in _keys(len(letters), lengths)]


def _compare(space: VersionSpace, fns: Sequence[Fn], queries: Sequence[str]) -> None:
    """Count, probability of every output, entropy, top and support against brute force."""
    assert space.log2_count() == pytest.approx(math.log2(len(fns)), abs=1e-9)
    for x in queries:
        counts = Counter(f(x) for f in fns)
        total = len(fns)
        pred = space.predictive(x)
        for y, c in counts.items():
            assert pred.prob(y) == pytest.approx(c / total, abs=1e-12), (x, y)
        assert pred.entropy == pytest.approx(
            entropy_bits(c / total for c in counts.values()), abs=1e-9
        ), x
        support = pred.support(1_000_000)
        assert support is not None and set(support) == set(counts), x
        for y, (value, p) in support.items():
            assert value == y and p == pytest.approx(counts[y] / total, abs=1e-12)
        top = pred.top(6)
        assert [counts[y] for y in top] == sorted(counts.values(), reverse=True)[: len(top)], x
        assert len(top) == min(6, len(counts)) and len(set(top)) == len(top)
        assert pred.top(6) == top


# -- the reference -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("primer", "plain", "cipher"),
    [
        # b=27, A=0, z=51: H=7+27=34 i, e=30+0 e, l=37+51=88=36 k, then l+H=44 s, o+e=70=18 S.
        ("bAz", "Hello", "ieksS"),
        ("bAz", "He llo", "ie ksS"),
        ("AAA", "AAAaaa", "AAAaaa"),  # a + A = a
        ("AAA", "zzzz", "zzzy"),  # z + z = 102 = 50 = y
        ("zzz", "BBB", "AAA"),  # B + z = 52 = 0
        # Mod 52, not 26: U + T = 20 + 19 = 39 = n (the 26-letter autokey gives N).
        ("QUEENLY", "ATTACKATDAWN", "QnXEPVYTWTWP"),
        ("ZZZZZZZZ", "a", "z"),
        ("aAaAaAaA", "A", "a"),
    ],
)
def test_known_vectors(primer: str, plain: str, cipher: str) -> None:
    assert autokey(primer, False, plain, CASED_ALPHABET) == cipher
    assert KIND.encrypt(KIND.check_params({"primer": primer}))(plain) == cipher
    shifts = [CASED_ALPHABET.index(c) for c in primer]
    assert _independent(shifts, plain, CASED_ALPHABET) == cipher


def test_reference_matches_independent_on_random_inputs() -> None:
    rng = random.Random(4)
    for _ in range(300):
        primer = "".join(rng.choice(CASED_ALPHABET) for _ in range(rng.choice(AUTOKEY_LENGTHS)))
        x = _random_cased(rng)
        shifts = [CASED_ALPHABET.index(c) for c in primer]
        assert KIND.encrypt({"primer": primer})(x) == _independent(shifts, x, CASED_ALPHABET)


def test_reference_rejects_foreign_characters() -> None:
    enc = KIND.encrypt({"primer": "aBc"})
    for x in ("Ab1", "\u00e9", "A_B", "A\tB"):
        with pytest.raises(FamilyError):
            enc(x)
    assert enc("") == ""


# -- the count -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("letters", "lengths"), [("aZ", (3, 4, 5, 6, 7, 8)), ("zAb", (3, 4, 5)), ("AbcD", (2, 3))]
)
def test_keys_are_distinct_functions_on_a_reduced_alphabet(
    letters: str, lengths: tuple[int, ...]
) -> None:
    """Every (length, primer) is its own function on plaintexts of max(lengths) letters,
    and one letter fewer merges keys (so the bound of the argument is tight)."""
    q = len(letters)
    primers = ["".join(letters[v] for v in k) for k in _keys(q, lengths)]

    def signatures(longest: int) -> set[tuple[str, ...]]:
        plains = ["".join(p) for n in range(1, longest + 1) for p in product(letters, repeat=n)]
        return {tuple(autokey(k, False, x, letters) for x in plains) for k in primers}

    assert len(primers) == sum(q**n for n in lengths)
    assert len(signatures(max(lengths))) == len(primers)
    assert len(signatures(max(lengths) - 1)) < len(primers)


def test_full_alphabet_primers_distinct_on_the_proofs_plaintexts() -> None:
    """52 letters, lengths 3-8, primer letters in {A, z}: the proof's 8-letter plaintexts
    (p_0 in A, B, C, then A's) tell all 504 keys apart."""
    primers = ["".join(t) for n in AUTOKEY_LENGTHS for t in product("Az", repeat=n)]
    inputs = [c + "A" * 7 for c in "ABC"]
    assert (
        len({tuple(autokey(k, False, x, CASED_ALPHABET) for x in inputs) for k in primers}) == 504
    )


def test_kind_constants() -> None:
    assert TOTAL == 54_507_958_499_904 == 52**3 * (52**6 - 1) // 51
    assert KIND.log2_h == pytest.approx(math.log2(TOTAL), abs=1e-12)
    assert KIND.space().log2_count() == pytest.approx(KIND.log2_h, abs=1e-12)
    assert KIND.output_format == "cased" and KIND.name == "autokey52"
    assert KIND.template_name == "code/eri/autokey52.py.j2"
    assert KIND.log2_y(8) == pytest.approx(8 * math.log2(52))
    # 8 letters on the prior: every length-8 primer gives its own output (52^8 of them,
    # all of Z_52^8), and the shorter lengths' outputs are among them.
    x = "aBcDeFgH"
    pred = KIND.space().predictive(x)
    assert pred.entropy < 8 * math.log2(52)
    assert pred.entropy > math.log2(52**8) - 0.2


# -- the space against brute force ---------------------------------------------------------


@pytest.mark.parametrize(
    ("letters", "lengths"),
    [
        ("aBc", (1, 2, 3)),
        ("Zab", (2, 3, 4)),
        ("zA", (1, 2, 3, 4)),
        ("AbCd", (2, 3)),
        ("aZ", (3, 4, 5, 6, 7, 8)),
    ],
)
def test_space_matches_brute_force_on_reduced_alphabets(
    letters: str, lengths: tuple[int, ...]
) -> None:
    """The alphabet string (not a prefix of A-Z, mixed case) numbers the letters."""
    rng = random.Random(len(letters) * 10 + len(lengths))
    fns = _fns(letters, lengths)
    space: VersionSpace = AutokeySpace.prior(lengths, False, alphabet=letters)
    fixed = [letters[0] * 9, (letters * 4)[:9], letters[-1] + " " + letters[0] * 3]
    for _ in range(4):
        queries = fixed + [_random_cased(rng, letters, 10) for _ in range(20)]
        _compare(space, fns, queries)
        secret = rng.choice(fns)
        x = rng.choice(queries)
        space, fns = space.observe(x, secret(x)), [f for f in fns if f(x) == secret(x)]
        assert fns and space.log2_count() > -math.inf


def test_space_full_alphabet_matches_brute_force() -> None:
    """52 letters, every length with at most 2 free primer positions (5,565 keys)."""
    primers = {
        3: (5, -1, 30),
        4: (-1, 51, -1, 26),
        5: (0, 27, 0, 0, -1),
        6: (0, -1, 0, 40, 0, -1),
        7: (1, 28, 3, 30, 5, 32, 7),
        8: (0, 0, 26, -1, 0, 0, 0, 0),
    }
    keys = []
    for primer in primers.values():
        free = [i for i, v in enumerate(primer) if v < 0]
        for values in product(range(52), repeat=len(free)):
            key = list(primer)
            for i, v in zip(free, values, strict=True):
                key[i] = v
            keys.append(tuple(key))
    fns = [partial(_independent, k, letters=CASED_ALPHABET) for k in keys]
    assert len(fns) == 52**2 * 2 + 52 * 3 + 1 == 5565
    space = AutokeySpace(primers, False, alphabet=CASED_ALPHABET)
    rng = random.Random(5)
    queries = ["a", "aB", "A" * 12, "aaaaa AAAAA", "z" * 32, "AbAb aBaB", "FcAaAaAa", "Zz Yy Xx"]
    queries += [_random_cased(rng, "Aa", 14) for _ in range(4)]
    queries += [_random_cased(rng) for _ in range(3)]
    _compare(space, fns, queries)


def test_observation_rules() -> None:
    space = KIND.space()
    enc = KIND.encrypt({"primer": "kEyWoRd"})
    # 3 letters fix 3 primer letters of every length: 52^0 + ... + 52^5 keys left.
    after = space.observe("aBc", enc("aBc"))
    assert 2 ** after.log2_count() == pytest.approx(sum(52**n for n in range(6)))
    x = "Hello World"
    after = space.observe(x, enc(x))
    assert isinstance(after, AutokeySpace)
    assert set(after.primers) == {7} and after.log2_count() == 0.0
    assert after.predictive("zZzZz ZzZzZ").mode == enc("zZzZz ZzZzZ")
    assert after.predictive("zZzZz ZzZzZ").top(2) == [enc("zZzZz ZzZzZ")]
    # Case is information: the same letters in the other case are another observation.
    assert after.observe("abc", enc("abc")).log2_count() == 0.0
    assert after.observe("abc", enc("ABC")).log2_count() == -math.inf


def test_space_rejects_bad_alphabets() -> None:
    for kwargs in (
        {"alphabet": "aa"},
        {"alphabet": "A"},
        {"alphabet": "AB", "q": 3},
        {"alphabet": "A B"},
    ):
        with pytest.raises(FamilyError):
            AutokeySpace.prior((3,), False, **kwargs)


# -- histories, hostile outputs, speed ------------------------------------------------------


def _check_predictive(space: VersionSpace, pred: Predictive, x: str) -> None:
    assert pred.entropy <= space.log2_count() + 1e-9
    assert pred.entropy <= KIND.log2_y(len(x)) + 1e-9
    support = pred.support()
    if support is not None:
        assert sum(p for _, p in support.values()) == pytest.approx(1.0, abs=1e-9)
        assert entropy_bits(p for _, p in support.values()) == pytest.approx(pred.entropy, abs=1e-9)
        for key, (y, p) in list(support.items())[:50]:
            assert key == y and pred.prob(y) == pytest.approx(p, abs=1e-12)
    top = pred.top(3)
    assert top, x
    probs = [pred.prob(y) for y in top]
    assert probs == sorted(probs, reverse=True) and probs[0] > 0
    if support is not None:
        assert probs[0] == pytest.approx(max(p for _, p in support.values()))
    assert pred.top(3) == top


SHORT = ["a", "aB", "AbC", "aaaa", "Hello", "aB cD", "AbCdEfG", "zZ y", "aBcDeFgHiJ", "AaAaAaAa"]


def test_history_invariants() -> None:
    """The true key stays consistent; realised information adds up to the count drop."""
    for seed in range(16):
        rng = random.Random(seed)
        params = KIND.sample_params(rng)
        rule = KIND.encrypt(params)
        space = KIND.space()
        realised = 0.0
        for t in range(6):
            x = SHORT[(seed + t) % len(SHORT)] if t % 2 == 0 else _random_cased(rng, longest=12)
            y = rule(x)
            pred = space.predictive(x)
            _check_predictive(space, pred, x)
            p = pred.prob(y)
            assert p > 0.0, (params, x, y)
            realised -= math.log2(p)
            space = space.observe(x, y)
            assert space.log2_count() >= 0.0
            assert realised == pytest.approx(KIND.log2_h - space.log2_count(), abs=1e-6)
            assert space.predictive(x).prob(y) == pytest.approx(1.0)
            assert space.predictive(x).top(1) == [y]


@pytest.mark.parametrize("y", ["", "ABCD", "Ab1d", "Abcde", "Ab  ", "Ab_D", 7, None, "\u00e9bcd"])
def test_hostile_outputs_empty_the_space(y: object) -> None:
    space = KIND.space()
    assert space.observe("Ab D", y).log2_count() == -math.inf
    assert space.predictive("Ab D").prob(y) == 0.0
    assert space.observe("A1", "A1").log2_count() == -math.inf
    assert space.observe(3, "A").log2_count() == -math.inf
    assert space.predictive("A1").top(3) == []


# -- template, sampling, params ------------------------------------------------------------


def test_template_matches_reference() -> None:
    for seed in range(8):
        params = KIND.sample_params(random.Random(100 + seed))
        rule = KIND.encrypt(params)
        code = render(KIND.template_name, **KIND.context(params))
        assert "import" not in code and "_" not in "".join(
            tok for tok in code.replace("\n", " ").split() if not tok.startswith(('"', "'"))
        )
        namespace: dict[str, Any] = {}
        exec(code, namespace)
        plain = namespace["blackbox"]
        inputs = differential_inputs(random.Random(seed), 220, InputShape(MAX_LEN, cased=True))
        inputs += [
            "z" * 32,
            CASED_ALPHABET[:32],
            CASED_ALPHABET[20:],
            "Zz" * 16,
            "aB cD " * 5 + "E",
        ]
        assert any(len(x) == 32 and " " not in x for x in inputs)
        assert any(len(x) == 32 and " " in x for x in inputs)
        assert any(x != x.upper() and x != x.lower() for x in inputs)
        for x in inputs:
            assert plain(x) == rule(x), (params, x)
        restricted = restricted_blackbox(code)
        for x in inputs[:30] + inputs[-5:]:
            assert restricted(x) == rule(x)
    # Lower-case primers reach the template unchanged.
    code = render(KIND.template_name, **KIND.context({"primer": "zAq"}))
    namespace = {}
    exec(code, namespace)
    assert namespace["blackbox"]("Hello World") == KIND.encrypt({"primer": "zAq"})("Hello World")


def test_sampling_deterministic_and_round_trips() -> None:
    for seed in range(30):
        a = KIND.sample_params(random.Random(seed))
        assert a == KIND.sample_params(random.Random(seed))
        assert KIND.check_params(dict(a)) == a
        text = KIND.describe(a)
        assert text.startswith(CASED_PREAMBLE) and text.endswith("Output: the resulting string.")
        assert str(a["primer"]) in text and "mod 52" in text
        body = text.removeprefix(CASED_PREAMBLE).removesuffix("Output: the resulting string.")
        assert KIND.steps(a) == [body.strip()]
        assert KIND.context(a) == {"autokey_primer": a["primer"]}
    assert len({str(KIND.sample_params(random.Random(s))) for s in range(50)}) == 50


def test_describe_states_the_key() -> None:
    text = KIND.describe({"primer": "bAz"})
    assert "primer key bAz (shifts 27, 0, 51, length 3)" in text
    assert "c_i = (p_i + s_i) mod 52" in text and "s_i = p_(i-3)" in text


class _FixedDraw(random.Random):
    """A generator whose first ``randrange`` returns ``r``."""

    def __init__(self, r: int) -> None:
        super().__init__(0)
        self._r = r

    def randrange(self, *args: Any, **kwargs: Any) -> int:
        assert args == (TOTAL,)
        return self._r


def test_sampling_uniform_over_keys() -> None:
    """Lengths with probability 52^L / |H|, primer letters uniform over the 52 letters."""
    rng = random.Random(1)
    draws = [str(KIND.sample_params(rng)["primer"]) for _ in range(20_000)]
    lengths = Counter(len(p) for p in draws)
    assert set(lengths) <= set(AUTOKEY_LENGTHS)
    for n in (7, 8):
        p = 52**n / TOTAL
        assert abs(lengths[n] - 20_000 * p) < 5 * math.sqrt(20_000 * p * (1 - p))
    letters = Counter(ch for primer in draws for ch in primer)
    expected = sum(letters.values()) / 52
    assert set(letters) == set(CASED_ALPHABET)
    assert max(abs(c - expected) for c in letters.values()) < 5 * math.sqrt(expected)
    # The length is cut from one uniform draw over all keys: check the cut points exactly.
    cuts = {0: 3, 52**3 - 1: 3, 52**3: 4, 52**3 + 52**4: 5, TOTAL - 52**8 - 1: 7}
    cuts |= {TOTAL - 52**8: 8, TOTAL - 1: 8}
    for r, n in cuts.items():
        assert len(str(KIND.sample_params(_FixedDraw(r))["primer"])) == n


@pytest.mark.parametrize(
    "primer",
    ["ab", "abcdefghi", "AB1", "AB C", "\u00c4BC", "ab_", 123, None, True, ["a", "b", "c"], ""],
)
def test_check_params_rejects(primer: object) -> None:
    with pytest.raises(FamilyError):
        KIND.check_params({"primer": primer})


def test_check_params_keeps_case() -> None:
    assert KIND.check_params({"primer": "kEy"}) == {"primer": "kEy"}
    assert KIND.check_params({"primer": "abcdefgh", "extra": 1}) == {"primer": "abcdefgh"}
    with pytest.raises(FamilyError):
        KIND.check_params({})
    assert KIND.encrypt({"primer": "aaa"})("AAA") != KIND.encrypt({"primer": "AAA"})("AAA")
