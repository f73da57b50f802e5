"""ERI polyalphabetic: three independent random alphabets, letter i through alphabet i mod 3.

The product space against explicit enumeration of the consistent keys on reduced problems
(classes with most letters already mapped), histories from the prior against closed-form
counts, known vectors, the template under RestrictedPython, sampling and params.
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

from blackboxes.families.eri._alphabet import ALPHABET, MAX_LEN, normalise
from blackboxes.families.eri._inputs import differential_inputs
from blackboxes.families.eri._kind import PREAMBLE
from blackboxes.families.eri._polyalphabetic import PolyalphabeticKind, polyalphabetic
from blackboxes.families.eri._polyalphabetic_space import PolyalphabeticSpace, split_classes
from blackboxes.families.eri._spaces import same_shape
from blackboxes.families.eri._substitution_space import SubstitutionSpace
from blackboxes.information import VersionSpace, entropy_bits
from oracle_bench.errors import FamilyError
from templates import render
from tests.blackboxes.restricted import restricted_blackbox

KIND = PolyalphabeticKind()
Fn = Callable[[str], str]

QWERTY = "QWERTYUIOPASDFGHJKLZXCVBNM"
REVERSED = ALPHABET[::-1]
SHIFT3 = ALPHABET[3:] + ALPHABET[:3]


def _independent(alphabets: Sequence[str], x: str) -> str:
    """A second reference, written from the spec: a letter counter that skips spaces."""
    letters = [c for c in x if c != " "]
    images = iter(alphabets[i % 3][ord(c) - ord("A")] for i, c in enumerate(letters))
    return "".join(" " if c == " " else next(images) for c in x)


def _random_plaintext(rng: random.Random, letters: str = ALPHABET, longest: int = MAX_LEN) -> str:
    while True:
        raw = "".join(
            " " if rng.random() < 0.2 else rng.choice(letters)
            for _ in range(rng.randint(1, longest))
        )
        text = normalise(raw)
        if text:
            return text


def _random_alphabets(rng: random.Random) -> list[str]:
    out = []
    for _ in range(3):
        letters = list(ALPHABET)
        rng.shuffle(letters)
        out.append("".join(letters))
    return out


# -- reference and known vectors -------------------------------------------------------


def test_known_vectors() -> None:
    enc = KIND.encrypt(KIND.check_params({"alphabets": [QWERTY, REVERSED, SHIFT3]}))
    # H E L | L O W | O R L | D: classes 0, 1, 2 by letter index, the space not counted.
    assert enc("HELLO WORLD") == "IVOSL ZGIOR"
    assert enc("A") == "Q"
    assert enc("AA") == "QZ"
    assert enc("AAAA") == "QZDQ"
    assert enc("AAA AAA") == "QZD QZD"
    assert enc("A A A A") == "Q Z D Q"
    assert enc("ABCDEFGHIJKLMNOPQRSTUVWXYZ") == "QYFRVIUSLPPOD" + "MRHJULGXCDANA"
    assert enc("Z" * 32) == "MAC" * 10 + "MA"


def test_reference_matches_independent_code() -> None:
    rng = random.Random(11)
    for _ in range(300):
        alphabets = _random_alphabets(rng)
        x = _random_plaintext(rng)
        assert polyalphabetic(alphabets, x) == _independent(alphabets, x)


def test_describe_states_the_key() -> None:
    params = KIND.check_params({"alphabets": [QWERTY, REVERSED, SHIFT3]})
    text = KIND.describe(params)
    assert text.startswith(PREAMBLE)
    for j, a in enumerate((QWERTY, REVERSED, SHIFT3)):
        assert f"alphabet {j} = {a}" in text
    assert "i mod 3" in text and "do not advance" in text
    assert KIND.steps(params) == [
        text.removeprefix(PREAMBLE).removesuffix("Output: the resulting string.").strip()
    ]


# -- counts ------------------------------------------------------------------------------


def test_log2_h() -> None:
    assert KIND.log2_h == pytest.approx(3 * math.log2(math.factorial(26)), abs=1e-12)
    assert KIND.log2_h == pytest.approx(265.1, abs=0.05)
    assert KIND.space().log2_count() == pytest.approx(KIND.log2_h, abs=1e-9)
    assert KIND.log2_y(8) == pytest.approx(8 * math.log2(26))


# -- the product space against explicit enumeration --------------------------------------

# Free plaintext letters per class: 4! * 3! * 5! = 17,280 consistent keys.
FREE = ("VWXY", "XYZ", "QRSTU")


def _reduced(seed: int) -> tuple[list[str], PolyalphabeticSpace, list[Fn]]:
    """A secret key, the space with every letter but FREE[j] mapped in class j, and every
    consistent key as a function (explicit enumeration)."""
    secret = _random_alphabets(random.Random(seed))
    parts = []
    completions: list[list[str]] = []
    for j, free in enumerate(FREE):
        known = "".join(c for c in ALPHABET if c not in free)
        parts.append(
            SubstitutionSpace().observe(known, "".join(secret[j][ord(c) - 65] for c in known))
        )
        images = [secret[j][ord(c) - 65] for c in free]
        options = []
        for perm in permutations(images):
            table = dict(zip(free, perm, strict=True))
            options.append("".join(table.get(c, secret[j][i]) for i, c in enumerate(ALPHABET)))
        completions.append(options)
    assert all(isinstance(p, SubstitutionSpace) for p in parts)
    space = PolyalphabeticSpace([p for p in parts if isinstance(p, SubstitutionSpace)])
    fns: list[Fn] = [partial(_independent, key) for key in product(*completions)]
    return secret, space, fns


REDUCED_QUERIES = [
    "V",
    "AX",
    "XXX",
    "VWXYZ",
    "QRSTU VWXY",
    "ZZZZZZZZZ",
    "AB CD EF",
    "VXQ WYR XZS YVT",
    "UUU TTT SSS",
    "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "YYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYY",
]


def _compare(space: VersionSpace, fns: list[Fn], queries: list[str]) -> None:
    assert space.log2_count() == pytest.approx(math.log2(len(fns)), abs=1e-9)
    for x in queries:
        counts = Counter(f(x) for f in fns)
        total = sum(counts.values())
        pred = space.predictive(x)
        for y, c in counts.items():
            assert pred.prob(y) == pytest.approx(c / total, abs=1e-12), (x, y)
        assert pred.entropy == pytest.approx(
            entropy_bits(c / total for c in counts.values()), abs=1e-9
        )
        support = pred.support(100_000)
        assert support is not None
        assert set(support) == set(counts)
        for key, (y, p) in support.items():
            assert key == y and p == pytest.approx(counts[y] / total, abs=1e-12)
        assert pred.support(len(counts)) is not None
        if len(counts) > 1:
            assert pred.support(len(counts) - 1) is None
        top = pred.top(10)
        assert len(top) == min(10, len(counts)) and len(set(top)) == len(top)
        assert all(y in counts for y in top) and pred.top(10) == top
        assert pred.top(len(counts) + 5) == pred.top(len(counts) + 5)
        assert set(pred.top(len(counts) + 5)) == set(counts)
        # Outputs no consistent key gives, and malformed ones, have probability 0.
        for y in counts:
            for i, ch in enumerate(y):
                if ch != " ":
                    other = y[:i] + ALPHABET[(ord(ch) - 64) % 26] + y[i + 1 :]
                    if other not in counts:
                        assert pred.prob(other) == 0.0
                    break
            break
        assert pred.prob(x + "A") == 0.0 and pred.prob(7) == 0.0
        assert pred.prob(x.lower()) == 0.0


@pytest.mark.parametrize("seed", [0, 1])
def test_product_space_matches_brute_force(seed: int) -> None:
    secret, space, fns = _reduced(seed)
    _compare(space, fns, REDUCED_QUERIES)
    # Observing restricts to exactly the keys that agree.
    rng = random.Random(seed)
    for x in REDUCED_QUERIES:
        counts = Counter(f(x) for f in fns)
        for y in rng.sample(sorted(counts), min(3, len(counts))):
            observed = space.observe(x, y)
            assert observed.log2_count() == pytest.approx(math.log2(counts[y]), abs=1e-9)
        assert space.observe(x, polyalphabetic(secret, x)).log2_count() >= 0.0
    # A two-step history against brute force, predictives included.
    history = [("VX Y", fns[5]("VX Y")), ("QRSZZ", fns[5]("QRSZZ"))]
    kept = [f for f in fns if all(f(x) == y for x, y in history)]
    _compare(space.observe_all(history), kept, REDUCED_QUERIES)


def test_characterising_inputs_separate_the_reduced_keys() -> None:
    """Distinct keys are distinct functions on inputs of 3 characters (a letter thrice)."""
    _, _, fns = _reduced(3)
    signatures = {tuple(f(c * 3) for c in ALPHABET) for f in fns}
    assert len(signatures) == len(fns) == 4 * 3 * 2 * 6 * 120


def test_observe_routes_classes_like_direct_construction() -> None:
    """Observing through the full layout (with spaces) equals observing each class."""
    rng = random.Random(5)
    secret = _random_alphabets(rng)
    for _ in range(40):
        x = _random_plaintext(rng)
        y = polyalphabetic(secret, x)
        via_full = KIND.space().observe(x, y)
        assert isinstance(via_full, PolyalphabeticSpace)
        for j, (sx, part) in enumerate(zip(split_classes(x, 3), via_full.parts, strict=True)):
            direct = SubstitutionSpace().observe(sx, "".join(secret[j][ord(c) - 65] for c in sx))
            assert isinstance(direct, SubstitutionSpace)
            assert part.fingerprint() == direct.fingerprint()


# -- histories from the prior ------------------------------------------------------------


def _closed_form_log2(history: list[str]) -> float:
    """log2 of the consistent keys: class j keeps (26 - letters it has seen)! alphabets."""
    seen: list[set[str]] = [set(), set(), set()]
    for x in history:
        for j, sx in enumerate(split_classes(x, 3)):
            seen[j].update(sx)
    return sum(math.log2(math.factorial(26 - len(s))) for s in seen)


@pytest.mark.parametrize("seed", range(6))
def test_history_realised_information_adds_up(seed: int) -> None:
    rng = random.Random(seed)
    params = KIND.sample_params(rng)
    enc = KIND.encrypt(params)
    space: VersionSpace = KIND.space()
    realised = 0.0
    asked: list[str] = []
    for _ in range(12):
        x = _random_plaintext(rng)
        y = enc(x)
        pred = space.predictive(x)
        assert pred.entropy <= space.log2_count() + 1e-9
        assert pred.entropy <= KIND.log2_y(len(x)) + 1e-9
        top = pred.top(3)
        assert top and all(same_shape(x, t) for t in top) and pred.top(3) == top
        probs = [pred.prob(t) for t in top]
        assert all(p == pytest.approx(probs[0]) for p in probs) and probs[0] > 0.0
        p = pred.prob(y)
        assert p > 0.0 and p == pytest.approx(2.0**-pred.entropy, rel=1e-9)
        realised -= math.log2(p)
        space = space.observe(x, y)
        asked.append(x)
        assert space.log2_count() == pytest.approx(_closed_form_log2(asked), abs=1e-9)
        assert realised == pytest.approx(KIND.log2_h - space.log2_count(), abs=1e-6)
        assert space.predictive(x).prob(y) == pytest.approx(1.0)
        assert space.predictive(x).top(1) == [y]
    # Once every letter has been seen in every class the key is pinned down.
    twice = ALPHABET + ALPHABET
    for shift in range(3):
        x = twice[shift : shift + 27]  # 27 letters: each class sees all 26 over the shifts
        space = space.observe(x, enc(x))
    assert space.log2_count() == 0.0
    x = _random_plaintext(rng)
    pred = space.predictive(x)
    assert pred.entropy == 0.0 and pred.top(5) == [enc(x)]
    assert pred.support() == {enc(x): (enc(x), 1.0)}


def test_inconsistent_and_malformed_observations_empty_the_space() -> None:
    space = KIND.space()
    seen = space.observe("ABCD", "QZDR")
    assert seen.log2_count() > -math.inf
    # Class 0 has A -> Q, D -> R; class 1 B -> Z; class 2 C -> D.
    assert seen.observe("AAAA", "XZDQ").log2_count() == -math.inf  # A again, as X
    assert seen.observe("XB", "RZ").log2_count() == -math.inf  # R is D's in class 0
    assert seen.observe("DB", "RY").log2_count() == -math.inf  # B is Z in class 1
    assert seen.observe("DB", "RZ").log2_count() > -math.inf
    # Classes are independent: the same cipher letter in different classes is fine.
    assert seen.observe("EFG", "ZQQ").log2_count() > -math.inf
    for x, y in [("AB", "A B"), ("AB", "A"), ("AB", 7), ("AB", "ab"), ("A B", "AB "), (3, "A")]:
        assert space.observe(x, y).log2_count() == -math.inf
    assert space.predictive("AB").prob("!!") == 0.0
    assert space.predictive("ab").top(3) == [] and space.predictive(5).entropy == 0.0


def test_prior_predictive_closed_forms() -> None:
    pred = KIND.space().predictive("AAB A")  # classes: A A | A | B
    # class 0 sees {A}, class 1 {A}, class 2 {B}: 26^3 equally likely outputs
    assert pred.entropy == pytest.approx(3 * math.log2(26))
    assert pred.prob("QZD Q") == pytest.approx(26.0**-3)
    assert pred.prob("QZD R") == 0.0  # class 0 maps A twice
    assert pred.prob("QZDQ ") == 0.0
    support = pred.support(26**3)
    assert support is not None and len(support) == 26**3
    assert pred.support(26**3 - 1) is None
    assert pred.top(3) == ["AAA A", "AAB A", "AAC A"]
    long = KIND.space().predictive("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    assert long.entropy == pytest.approx(
        math.log2(math.perm(26, 9) * math.perm(26, 9) * math.perm(26, 8))
    )
    assert long.support() is None
    assert len(set(long.top(8))) == 8


# -- template ----------------------------------------------------------------------------


def test_template_matches_reference() -> None:
    rng = random.Random(21)
    for seed in range(6):
        params = KIND.check_params(KIND.sample_params(random.Random(300 + seed)))
        enc = KIND.encrypt(params)
        code = render(KIND.template_name, **KIND.context(params))
        assert "import" not in code and "_" not in "".join(
            tok for tok in code.replace("\n", " ").split() if not tok.startswith(('"', "'"))
        )
        namespace: dict[str, Any] = {}
        exec(code, namespace)
        plain = namespace["blackbox"]
        restricted = restricted_blackbox(code)
        inputs = differential_inputs(random.Random(seed), 120)
        inputs += [_random_plaintext(rng) for _ in range(60)]
        inputs += ["".join(rng.choice(ALPHABET) for _ in range(32)) for _ in range(5)]
        inputs += ["A B C D E F G H I J K L M N O P", "AB CD EF GH IJ KL MN OP QR ST UV"]
        assert any(len(x) == 32 and " " not in x for x in inputs)
        for x in inputs:
            assert plain(x) == enc(x), (params, x)
        for x in inputs[:60] + inputs[-7:]:
            assert restricted(x) == enc(x), (params, x)


# -- sampling and params -----------------------------------------------------------------


def test_sampling_is_deterministic_and_uniform() -> None:
    assert KIND.sample_params(random.Random(4)) == KIND.sample_params(random.Random(4))
    assert KIND.sample_params(random.Random(4)) != KIND.sample_params(random.Random(5))
    rng = random.Random(8)
    draws = 5200
    firsts: list[Counter[str]] = [Counter(), Counter(), Counter()]
    pairs: Counter[bool] = Counter()
    for _ in range(draws):
        params = KIND.sample_params(rng)
        assert KIND.check_params(params) == params
        alphabets = params["alphabets"]
        assert isinstance(alphabets, list)
        for j, a in enumerate(alphabets):
            firsts[j][str(a)[0]] += 1
        # independent alphabets: the images of A agree in classes 0 and 1 w.p. 1/26
        pairs[str(alphabets[0])[0] == str(alphabets[1])[0]] += 1
    for counts in firsts:
        assert set(counts) == set(ALPHABET)
        assert all(120 <= c <= 290 for c in counts.values()), counts  # mean 200
    assert 120 <= pairs[True] <= 290


def test_check_params_round_trip_and_rejection() -> None:
    good = {"alphabets": [QWERTY, REVERSED, SHIFT3]}
    assert KIND.check_params(good) == good
    assert KIND.check_params({"alphabets": (QWERTY, REVERSED, SHIFT3)}) == good
    assert KIND.check_params(KIND.check_params(good)) == good
    bad: list[Any] = [
        {},
        {"alphabets": QWERTY},
        {"alphabets": [QWERTY, REVERSED]},
        {"alphabets": [QWERTY, REVERSED, SHIFT3, ALPHABET]},
        {"alphabets": [QWERTY, REVERSED, SHIFT3[:25]]},
        {"alphabets": [QWERTY, REVERSED, SHIFT3 + "A"]},
        {"alphabets": [QWERTY, REVERSED, "A" + SHIFT3[1:25] + "A"]},
        {"alphabets": [QWERTY.lower(), REVERSED, SHIFT3]},
        {"alphabets": [QWERTY, REVERSED[:-1] + "a", SHIFT3]},
        {"alphabets": [QWERTY, REVERSED, 3]},
        {"alphabets": [QWERTY, REVERSED, None]},
        {"alphabets": "ABC"},
        {"alphabets": {"0": QWERTY}},
    ]
    for params in bad:
        with pytest.raises(FamilyError):
            KIND.check_params(params)
