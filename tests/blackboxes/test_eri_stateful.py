"""ERI kinds with long-range or stateful dependence: autokey, cipher autokey, frequency shift.

The spaces are checked against brute force on reduced problems (alphabets of 2-4 letters
via ``q``, or a substitution with most letters already fixed), and the kinds the way the
shared parametrised tests check registered kinds (without the family registry).
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Sequence
from functools import partial
from itertools import permutations, product
from typing import Any

import pytest

from blackboxes.families.eri._alphabet import ALPHABET, normalise
from blackboxes.families.eri._autokey import (
    AUTOKEY_LENGTHS,
    AutokeyKind,
    CipherAutokeyKind,
    autokey,
)
from blackboxes.families.eri._autokey_space import AutokeySpace, autokey_letters
from blackboxes.families.eri._frequency import (
    FrequencyShiftKind,
    frequency_letters,
    frequency_shift,
)
from blackboxes.families.eri._frequency_space import STEPS, FrequencyShiftSpace
from blackboxes.families.eri._kind import PREAMBLE, CipherKind
from blackboxes.information import Predictive, VersionSpace, entropy_bits
from oracle_bench.errors import FamilyError
from templates import render
from tests.blackboxes.restricted import restricted_blackbox

KINDS: list[CipherKind] = [AutokeyKind(), CipherAutokeyKind(), FrequencyShiftKind()]
IDS = [k.name for k in KINDS]
Fn = Callable[[str], str]


def _random_query(rng: random.Random, letters: str = ALPHABET, longest: int = 32) -> str:
    while True:
        raw = "".join(
            " " if rng.random() < 0.15 else rng.choice(letters)
            for _ in range(rng.randint(1, longest))
        )
        text = normalise(raw)
        if text:
            return text


def _inputs(rng: random.Random, count: int) -> list[str]:
    """Edge cases (one letter, repeats, spaces, 32 letters) then random queries."""
    fixed = ["A", "Z", "AA", "AB", "A" * 32, ALPHABET + "ABCDEF", "HELLO WORLD", "A B C D E F G H"]
    fixed += ["ABCDEFGHIJKLMNOP QRSTUVWXYZABCDE", "Z" * 31, "QQ QQ QQ QQ QQ QQ QQ QQ QQ QQ Q"]
    out = list(dict.fromkeys(fixed))
    while len(out) < count:
        out.append(_random_query(rng))
    return out


def _on_letters(fn: Callable[[list[int]], list[int]], x: str) -> str:
    """Apply a cipher on letter numbers to ``x``, spaces kept in place."""
    out = iter(fn([ALPHABET.index(c) for c in x if c != " "]))
    return "".join(" " if c == " " else ALPHABET[next(out)] for c in x)


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
        top = pred.top(6)
        best = sorted(counts.values(), reverse=True)[: len(top)]
        assert [counts[y] for y in top] == best, x
        assert len(top) == min(6, len(counts))


def _history(
    space: VersionSpace, fns: list[Fn], secret: Fn, x: str
) -> tuple[VersionSpace, list[Fn]]:
    y = secret(x)
    return space.observe(x, y), [f for f in fns if f(x) == y]


# -- autokey -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("primer", "feedback", "plain", "cipher"),
    [
        ("QUEENLY", False, "ATTACKATDAWN", "QNXEPVYTWTWP"),  # the textbook example
        ("KEY", False, "HELLO", "RIJSS"),
        ("KEY", False, "HE LLO", "RI JSS"),
        ("KEY", True, "HELLO", "RIJCW"),
        ("KEY", True, "HE LLO", "RI JCW"),
        ("AAA", False, "ABCDEF", "ABCDFH"),
        ("AAA", True, "ABCDEF", "ABCDFH"),
        ("AAA", True, "BBBBBBBBB", "BBBCCCDDD"),
        ("ZZZZZZZZ", False, "A", "Z"),
    ],
)
def test_autokey_known_vectors(primer: str, feedback: bool, plain: str, cipher: str) -> None:
    assert autokey(primer, feedback, plain) == cipher
    kind = CipherAutokeyKind() if feedback else AutokeyKind()
    assert kind.encrypt(kind.check_params({"primer": primer}))(plain) == cipher


@pytest.mark.parametrize("feedback", [False, True])
@pytest.mark.parametrize(("q", "lengths"), [(3, (1, 2, 3)), (3, (2, 3, 4)), (2, (1, 2, 3, 4, 5))])
def test_autokey_keys_are_distinct_functions(
    feedback: bool, q: int, lengths: tuple[int, ...]
) -> None:
    """Reduced alphabet: every (length, primer) is its own function on plaintexts of
    max(lengths) letters, and only there (one letter fewer merges keys)."""
    keys = [k for n in lengths for k in product(range(q), repeat=n)]

    def signatures(longest: int) -> set[tuple[tuple[int, ...], ...]]:
        plains = [p for n in range(1, longest + 1) for p in product(range(q), repeat=n)]
        return {tuple(tuple(autokey_letters(k, p, feedback, q)) for p in plains) for k in keys}

    assert len(keys) == sum(q**n for n in lengths)
    assert len(signatures(max(lengths))) == len(keys)
    assert len(signatures(max(lengths) - 1)) < len(keys)


@pytest.mark.parametrize("feedback", [False, True])
def test_autokey_full_alphabet_primers_distinct_on_eight_letters(feedback: bool) -> None:
    """26 letters, lengths 3-8, primer letters in {A, B}: the proof's plaintexts of 8
    letters (p_0 in A, B, C, then A's) already tell all 504 keys apart."""
    primers = ["".join(t) for n in AUTOKEY_LENGTHS for t in product("AB", repeat=n)]
    inputs = [c + "A" * 7 for c in "ABC"]
    assert len({tuple(autokey(k, feedback, x) for x in inputs) for k in primers}) == 504


def _autokey_fns(q: int, lengths: Sequence[int], feedback: bool) -> list[Fn]:
    def fn(k: tuple[int, ...], x: str) -> str:
        return _on_letters(lambda p: autokey_letters(k, p, feedback, q), x)

    keys = [k for n in lengths for k in product(range(q), repeat=n)]
    return [partial(fn, k) for k in keys]


@pytest.mark.parametrize("feedback", [False, True])
@pytest.mark.parametrize(
    ("q", "lengths"), [(3, (1, 2, 3)), (3, (2, 3, 4)), (2, (1, 2, 3, 4)), (4, (2, 3))]
)
def test_autokey_space_matches_brute_force(
    feedback: bool, q: int, lengths: tuple[int, ...]
) -> None:
    """Union over lengths, merged exactly (outputs of different lengths coincide)."""
    letters = ALPHABET[:q]
    rng = random.Random(q * 10 + len(lengths) + feedback)
    fns = _autokey_fns(q, lengths, feedback)
    space: VersionSpace = AutokeySpace.prior(lengths, feedback, q)
    fixed = [letters[0] * 9, (letters * 4)[:9], letters[-1] + " " + letters[0] * 3]
    for _ in range(4):
        queries = fixed + [_random_query(rng, letters, 10) for _ in range(25)]
        _compare(space, fns, queries)
        space, fns = _history(space, fns, rng.choice(fns), rng.choice(queries))
        assert fns and space.log2_count() > -math.inf


@pytest.mark.parametrize("feedback", [False, True])
def test_autokey_space_full_alphabet_matches_brute_force(feedback: bool) -> None:
    """26 letters, every length with at most 2 free primer positions (1,431 keys)."""
    primers = {
        3: (5, -1, 2),
        4: (-1, 0, -1, 0),
        5: (0, 0, 0, 0, -1),
        6: (0, -1, 0, 0, 0, -1),
        7: (1, 2, 3, 4, 5, 6, 7),
        8: (0, 0, 0, -1, 0, 0, 0, 0),
    }
    keys = []
    for primer in primers.values():
        free = [i for i, v in enumerate(primer) if v < 0]
        for values in product(range(26), repeat=len(free)):
            key = list(primer)
            for i, v in zip(free, values, strict=True):
                key[i] = v
            keys.append("".join(ALPHABET[v] for v in key))
    fns = [lambda x, k=k: autokey(k, feedback, x) for k in keys]
    assert len(fns) == 26**2 * 2 + 26 * 3 + 1
    space = AutokeySpace(primers, feedback)
    rng = random.Random(5)
    queries = ["A", "AB", "A" * 12, "AAAAA AAAAA", "F" * 32, "ABAB ABAB", "FCAAAAAA"]
    queries += [_random_query(rng, "AB", 14) for _ in range(6)]
    queries += [_random_query(rng) for _ in range(3)]
    _compare(space, fns, queries)


@pytest.mark.parametrize("feedback", [False, True])
def test_autokey_observation_rules(feedback: bool) -> None:
    kind = CipherAutokeyKind() if feedback else AutokeyKind()
    space = kind.space()
    # A 3-letter observation fixes 3 primer letters of every length: 26^0 + ... + 26^5 left.
    after = space.observe("ABC", kind.encrypt({"primer": "KEYWORD"})("ABC"))
    assert 2 ** after.log2_count() == pytest.approx(sum(26**n for n in range(6)))
    # 8 letters fix the primer of length 8 and check the rule for the shorter ones.
    x = "HELLO WORLD"
    y = kind.encrypt({"primer": "KEYWORD"})(x)
    after = space.observe(x, y)
    assert isinstance(after, AutokeySpace)
    assert set(after.primers) == {7} and after.log2_count() == 0.0
    assert after.posterior() == {7: 1.0}
    assert after.predictive("ZZZZZ ZZZZZ").mode == kind.encrypt({"primer": "KEYWORD"})(
        "ZZZZZ ZZZZZ"
    )


def test_autokey_kind_constants() -> None:
    total = sum(26**n for n in range(3, 9))
    assert total == 217_180_146_456 == 26**3 * (26**6 - 1) // 25
    for kind in KINDS[:2]:
        assert kind.log2_h == pytest.approx(math.log2(total), abs=1e-12)
        assert kind.space().log2_count() == pytest.approx(kind.log2_h, abs=1e-12)
        assert kind.output_format == "letters"
        assert kind.log2_y(8) == pytest.approx(8 * math.log2(26))


# -- frequency shift -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("alphabet", "step", "plain", "cipher"),
    [
        (ALPHABET, 1, "AAA", "ABC"),
        (ALPHABET, 3, "HELLO", "HELOO"),
        (ALPHABET, 2, "AA AA", "AC EG"),
        (ALPHABET[::-1], 1, "ABBA", "ZYZA"),
        (ALPHABET[::-1], 25, "B" * 27, "".join(ALPHABET[(24 - i) % 26] for i in range(27))),
        ("QWERTYUIOPASDFGHJKLZXCVBNM", 13, "THE CAT", "ZIT EQM"),
        ("QWERTYUIOPASDFGHJKLZXCVBNM", 13, "TT T", "ZM Z"),
    ],
)
def test_frequency_known_vectors(alphabet: str, step: int, plain: str, cipher: str) -> None:
    kind = FrequencyShiftKind()
    assert frequency_shift(alphabet, step, plain) == cipher
    assert kind.encrypt(kind.check_params({"alphabet": alphabet, "step": step}))(plain) == cipher


@pytest.mark.parametrize("q", [3, 4])
def test_frequency_keys_are_distinct_functions(q: int) -> None:
    """Reduced alphabet: q! * (q - 1) functions, told apart by plaintexts of 2 letters."""
    keys = [(perm, b) for perm in permutations(range(q)) for b in range(1, q)]
    plains = [p for n in (1, 2) for p in product(range(q), repeat=n)]
    sigs = {tuple(tuple(frequency_letters(perm, b, p, q)) for p in plains) for perm, b in keys}
    assert len(sigs) == len(keys) == math.factorial(q) * (q - 1)


def _frequency_fns(fixed: dict[str, str], steps: Sequence[int]) -> list[Fn]:
    """Every (sigma extending ``fixed``, step) as a function."""
    free_plain = [c for c in ALPHABET if c not in fixed]
    free_cipher = [c for c in ALPHABET if c not in fixed.values()]
    fns: list[Fn] = []
    for images in permutations(free_cipher):
        table = {**fixed, **dict(zip(free_plain, images, strict=True))}
        alphabet = "".join(table[c] for c in ALPHABET)
        for b in steps:
            fns.append(partial(frequency_shift, alphabet, b))
    return fns


FREQ_QUERIES = [
    "V",
    "VW",
    "VV",
    "VWXY",
    "VWXY Z",
    "AVAV",
    "ZZZ",
    "ABC",
    "AABC",
    "WXYZV AB",
    "V V V V V",
    "ZYXWV VWXYZ",
    "A" * 32,
    "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
]


def test_frequency_space_matches_brute_force() -> None:
    rng = random.Random(11)
    letters = list(ALPHABET)
    rng.shuffle(letters)
    secret_alphabet = "".join(letters)
    x0 = "ABCDEFGHIJKLMNOPQRSTUV"  # no repeated letter: every step stays possible
    fixed = {p: secret_alphabet[ord(p) - 65] for p in x0}
    space: VersionSpace = FrequencyShiftSpace().observe(x0, frequency_shift(secret_alphabet, 7, x0))
    fns = _frequency_fns(fixed, STEPS)
    assert len(fns) == 24 * 25
    _compare(space, fns, FREQ_QUERIES)
    # A repeated letter reveals the step: one step left, the 4! completions of sigma.
    x1 = "HH"
    y1 = frequency_shift(secret_alphabet, 7, x1)
    space = space.observe(x1, y1)
    fns = [f for f in fns if f(x1) == y1]
    assert len(fns) == 24
    _compare(space, fns, FREQ_QUERIES)
    x2 = "VVW"
    y2 = frequency_shift(secret_alphabet, 7, x2)
    space, fns = space.observe(x2, y2), [f for f in fns if f(x2) == y2]
    assert len(fns) == 6
    _compare(space, fns, FREQ_QUERIES)


def test_frequency_step_first_then_letters() -> None:
    """The repeat comes first: the step is fixed before most of sigma is."""
    secret = "QWERTYUIOPASDFGHJKLZXCVBNM"
    space: VersionSpace = FrequencyShiftSpace()
    for x in ("ABCA", "DEFGHIJKLMNOPQRSTUVW"):
        space = space.observe(x, frequency_shift(secret, 19, x))
    assert isinstance(space, FrequencyShiftSpace) and space.steps == (19,)
    fixed = {p: secret[ord(p) - 65] for p in "ABCDEFGHIJKLMNOPQRSTUVW"}
    _compare(space, _frequency_fns(fixed, (19,)), FREQ_QUERIES)
    # Inconsistent with the known step, or with sigma: empty.
    assert space.observe("AA", frequency_shift(secret, 18, "AA")).log2_count() == -math.inf
    assert space.observe("A", "W").log2_count() == -math.inf
    assert space.observe("XX", "AA").log2_count() == -math.inf  # step 0 is not a key


def test_frequency_kind_constants() -> None:
    kind = FrequencyShiftKind()
    assert kind.log2_h == pytest.approx(math.log2(math.factorial(26) * 25), abs=1e-12)
    assert kind.space().log2_count() == pytest.approx(kind.log2_h, abs=1e-12)
    pred = kind.space().predictive("AAB")
    assert pred.entropy == pytest.approx(math.log2(26 * 25 * 25), abs=1e-12)
    assert kind.space().predictive("ABC").entropy == pytest.approx(math.log2(26 * 25 * 24))


# -- every kind: the shared contract, without the registry ---------------------------


def _check_predictive(space: VersionSpace, pred: Predictive, x: str) -> None:
    assert pred.entropy <= space.log2_count() + 1e-9
    assert pred.entropy <= len(x) * math.log2(26) + 1e-9
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


SHORT = ["A", "AB", "ABC", "AAAA", "HELLO", "AB CD", "ABCDEFG", "ZZ Y", "ABCDEFGHIJ", "AAAAAAAA"]


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
def test_history_invariants(kind: CipherKind) -> None:
    """The true key stays consistent; realised information adds up to the count drop."""
    for seed in range(12):
        rng = random.Random(seed)
        params = kind.sample_params(rng)
        rule = kind.encrypt(params)
        space = kind.space()
        assert space.log2_count() == pytest.approx(kind.log2_h, abs=1e-9)
        realised = 0.0
        for t in range(6):
            x = SHORT[(seed + t) % len(SHORT)] if t % 2 == 0 else _random_query(rng, longest=12)
            y = rule(x)
            pred = space.predictive(x)
            _check_predictive(space, pred, x)
            p = pred.prob(y)
            assert p > 0.0, (kind.name, params, x, y)
            realised += -math.log2(p)
            space = space.observe(x, y)
            assert space.log2_count() >= 0.0
            assert realised == pytest.approx(kind.log2_h - space.log2_count(), abs=1e-6)
            assert space.predictive(x).prob(y) == pytest.approx(1.0)


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
def test_hostile_outputs_empty_the_space(kind: CipherKind) -> None:
    space = kind.space()
    for y in ["A B C D E", 7, None, "ab", "A!", "A ", ["A", "B"]]:
        assert space.observe("AB", y).log2_count() == -math.inf
        assert space.predictive("AB").prob(y) == 0.0
    assert space.observe(3, "AB").log2_count() == -math.inf


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
def test_predictive_of_a_fresh_space_is_a_distribution(kind: CipherKind) -> None:
    # Its speed is measured in benchmarks/eval/bench_spaces.py, not here.
    rng = random.Random(0)
    pool = [_random_query(rng) for _ in range(32)] + ["A" * 32, "AB" * 16]
    for x in pool:
        space = kind.space()  # fresh: nothing memoised
        pred = space.predictive(x)
        assert pred.entropy >= 0.0
        top = pred.top(3)
        assert 1 <= len(top) <= 3
        probs = [pred.prob(y) for y in top]
        assert all(p > 0.0 for p in probs) and probs == sorted(probs, reverse=True)
        assert sum(probs) <= 1.0 + 1e-9


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
def test_template_matches_reference(kind: CipherKind) -> None:
    for seed in range(8):
        params = kind.sample_params(random.Random(100 + seed))
        rule = kind.encrypt(params)
        code = render(kind.template_name, **kind.context(params))
        assert kind.template_name == f"code/eri/{kind.name}.py.j2"
        assert "import" not in code and "_" not in "".join(
            tok for tok in code.replace("\n", " ").split() if not tok.startswith(('"', "'"))
        ).replace("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "")
        namespace: dict[str, Any] = {}
        exec(code, namespace)
        plain = namespace["blackbox"]
        inputs = _inputs(random.Random(seed), 220)
        assert any(len(x.replace(" ", "")) == 32 for x in inputs)
        for x in inputs:
            assert plain(x) == rule(x), (kind.name, params, x)
        restricted = restricted_blackbox(code)
        for x in inputs[:40]:
            assert restricted(x) == rule(x)


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
def test_sampling_deterministic_and_params_round_trip(kind: CipherKind) -> None:
    for seed in range(20):
        a = kind.sample_params(random.Random(seed))
        assert a == kind.sample_params(random.Random(seed))
        assert kind.check_params(dict(a)) == a
        text = kind.describe(a)
        assert text.startswith(PREAMBLE) and all(str(v) in text for v in a.values())
        assert kind.steps(a) and kind.context(a)
    assert len({str(kind.sample_params(random.Random(s))) for s in range(50)}) == 50


def test_autokey_sampling_uniform_over_keys() -> None:
    """Lengths come with probability 26^L / |H| and primer letters are uniform."""
    kind = AutokeyKind()
    rng = random.Random(1)
    draws = [str(kind.sample_params(rng)["primer"]) for _ in range(20_000)]
    lengths = Counter(len(p) for p in draws)
    total = sum(26**n for n in AUTOKEY_LENGTHS)
    for n in (7, 8):
        expected = 20_000 * 26**n / total
        assert abs(lengths[n] - expected) < 5 * math.sqrt(expected)
    assert set(lengths) <= set(AUTOKEY_LENGTHS)
    firsts = Counter(p[0] for p in draws)
    assert len(firsts) == 26 and max(firsts.values()) < 20_000 / 26 * 1.3
    # The length is cut from one uniform draw over all keys: check the cut points exactly.
    cuts = {0: 3, 26**3 - 1: 3, 26**3: 4, 26**3 + 26**4: 5, total - 26**8: 8, total - 1: 8}
    for r, n in cuts.items():
        assert len(str(kind.sample_params(_FixedDraw(r))["primer"])) == n


class _FixedDraw(random.Random):
    """A generator whose first ``randrange`` returns ``r``."""

    def __init__(self, r: int) -> None:
        super().__init__(0)
        self._r = r

    def randrange(self, *args: Any, **kwargs: Any) -> int:
        assert args == (sum(26**n for n in AUTOKEY_LENGTHS),)
        return self._r


def test_frequency_sampling_uniform() -> None:
    kind = FrequencyShiftKind()
    rng = random.Random(2)
    draws = [kind.sample_params(rng) for _ in range(5_000)]
    steps = Counter(d["step"] for d in draws)
    assert set(steps) == set(STEPS) and max(steps.values()) < 5_000 / 25 * 1.5
    images = Counter(str(d["alphabet"])[0] for d in draws)
    assert len(images) == 26 and max(images.values()) < 5_000 / 26 * 1.5


@pytest.mark.parametrize(
    ("kind", "params"),
    [
        (AutokeyKind(), {"primer": "AB"}),
        (AutokeyKind(), {"primer": "ABCDEFGHI"}),
        (AutokeyKind(), {"primer": "AB1"}),
        (AutokeyKind(), {"primer": 123}),
        (AutokeyKind(), {}),
        (CipherAutokeyKind(), {"primer": "ÄBC"}),
        (CipherAutokeyKind(), {"primer": "AB C"}),
        (FrequencyShiftKind(), {"alphabet": ALPHABET, "step": 0}),
        (FrequencyShiftKind(), {"alphabet": ALPHABET, "step": 26}),
        (FrequencyShiftKind(), {"alphabet": ALPHABET, "step": True}),
        (FrequencyShiftKind(), {"alphabet": ALPHABET, "step": "3"}),
        (FrequencyShiftKind(), {"alphabet": "A" * 26, "step": 3}),
        (FrequencyShiftKind(), {"alphabet": ALPHABET[:25], "step": 3}),
        (FrequencyShiftKind(), {"step": 3}),
    ],
)
def test_check_params_rejects(kind: CipherKind, params: dict[str, Any]) -> None:
    with pytest.raises(FamilyError):
        kind.check_params(params)


def test_check_params_normalises() -> None:
    assert AutokeyKind().check_params({"primer": "key"}) == {"primer": "KEY"}
    lower = FrequencyShiftKind().check_params({"alphabet": ALPHABET.lower(), "step": 5})
    assert lower == {"alphabet": ALPHABET, "step": 5}
