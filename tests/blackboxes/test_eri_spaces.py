"""ERI version spaces: invariants over many seeds and brute-force checks of the counts."""

from __future__ import annotations

import math
import random
from collections import Counter
from itertools import product
from typing import Any

import pytest

from blackboxes.families import LEVELS, get_family
from blackboxes.families.eri import KINDS
from blackboxes.families.eri._alphabet import OUTPUT_FORMATS
from blackboxes.families.eri._ciphers import hill, vigenere
from blackboxes.families.eri._periodic import is_primitive
from blackboxes.families.eri._substitution_space import SubstitutionSpace
from blackboxes.families.eri._vigenere_space import VigenereLengthSpace
from blackboxes.information import MixtureVersionSpace, Predictive, VersionSpace, entropy_bits
from oracle_bench.errors import FamilyError

ERI = get_family("ERI")
ALL = [(level, kind) for level in LEVELS for kind in ERI.kinds(level)]
SHORT = ["A", "AB", "ABC", "AAAA", "HELLO", "AB CD", "ABCDEFG", "ZZ Y", "ABCDEFGHIJ"]


def _check_predictive(space: VersionSpace, pred: Predictive, x: str, log2_y: float) -> None:
    assert pred.entropy <= space.log2_count() + 1e-9
    assert pred.entropy <= log2_y + 1e-9
    support = pred.support()
    if support is not None and space.exact:
        assert sum(p for _, p in support.values()) == pytest.approx(1.0, abs=1e-9)
        assert entropy_bits(p for _, p in support.values()) == pytest.approx(pred.entropy, abs=1e-9)
        for key, (y, p) in list(support.items())[:50]:
            assert key == y and pred.prob(y) == pytest.approx(p, abs=1e-12)
    top = pred.top(3)
    assert top, x
    if space.exact:
        probs = [pred.prob(y) for y in top]
        assert probs == sorted(probs, reverse=True)
        if support is not None:
            assert probs[0] == pytest.approx(max(p for _, p in support.values()))
    assert pred.top(3) == top  # deterministic


@pytest.mark.parametrize(("level", "kind"), ALL)
def test_history_invariants(level: Any, kind: str) -> None:
    """The true rule stays consistent; realised information adds up to the count drop."""
    log2_h = KINDS[kind].log2_h
    log2_y = KINDS[kind].log2_y(32)  # the test's queries have up to 32 characters
    seeds = 12 if level == "easy" else 5
    for seed in range(seeds):
        rng = random.Random(seed)
        rule = ERI.sample_rule(rng, level, kind)
        space = ERI.version_space(level, kind)
        assert space.log2_count() == pytest.approx(log2_h, abs=1e-9)
        realised = 0.0
        served = ERI.for_rule(rule)
        for t in range(5):
            x = SHORT[(seed + t) % len(SHORT)] if t % 2 == 0 else str(served.random_query(rng))
            y = rule(x)
            pred = space.predictive(x)
            _check_predictive(space, pred, x, log2_y)
            p = pred.prob(y)
            assert p > 0.0, (kind, rule.params, x, y)
            realised += -math.log2(p)
            space = space.observe(x, y)
            assert space.log2_count() >= 0.0
            assert realised == pytest.approx(log2_h - space.log2_count(), abs=1e-6)
            assert realised <= log2_h + 1e-6
            assert space.predictive(x).prob(y) == pytest.approx(1.0)


@pytest.mark.parametrize(("level", "kind"), ALL)
def test_impossible_output_empties_the_space(level: Any, kind: str) -> None:
    space = ERI.version_space(level, kind)
    assert space.observe("AB", "A B C D E").log2_count() == -math.inf
    assert space.observe("AB", 7).log2_count() == -math.inf
    assert space.predictive("AB").prob("!!") == 0.0


def test_caesar_then_impossible() -> None:
    space = ERI.version_space("easy", "caesar").observe("A", "D")
    assert space.log2_count() == 0.0
    assert space.observe("B", "Q").log2_count() == -math.inf


def _brute(fns: list[Any], x: str) -> Counter[str]:
    return Counter(f(x) for f in fns)


def _compare(space: VersionSpace, fns: list[Any], queries: list[str]) -> None:
    assert space.log2_count() == pytest.approx(math.log2(len(fns)), abs=1e-9)
    for x in queries:
        counts = _brute(fns, x)
        pred = space.predictive(x)
        total = sum(counts.values())
        for y, c in counts.items():
            assert pred.prob(y) == pytest.approx(c / total, abs=1e-12), (x, y)
        assert pred.entropy == pytest.approx(
            entropy_bits(c / total for c in counts.values()), abs=1e-9
        )
        support = pred.support(100_000)
        if support is not None:
            assert set(support) == set(counts)


def test_substitution_matches_brute_force() -> None:
    rng = random.Random(4)
    letters = list("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    rng.shuffle(letters)
    perm = "".join(letters)
    known = "ABCDEFGHIJKLMNOPQRSTU"  # 21 mapped, 5! = 120 completions
    x0 = known
    space = SubstitutionSpace().observe(
        x0, x0.translate(str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", perm))
    )
    free_plain = "VWXYZ"
    free_cipher = [perm[ord(c) - 65] for c in free_plain]
    from itertools import permutations

    fns = []
    for images in permutations(free_cipher):
        table = dict(zip(free_plain, images, strict=True))
        full = "".join(table.get(c, perm[ord(c) - 65]) for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        fns.append(lambda t, f=full: t.translate(str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", f)))
    _compare(space, fns, ["V", "VW", "VWX YZ", "AVAV", "ZZZ", "ABC", "WXYZV AB", "VWXYZ"])


@pytest.mark.parametrize(("length", "observed"), [(3, ""), (4, "A"), (5, "AB"), (5, "ABC")])
def test_vigenere_length_matches_brute_force(length: int, observed: str) -> None:
    secret = [3, 7, 3, 9, 11][:length]
    space: VersionSpace = VigenereLengthSpace.prior(length)
    if observed:
        space = space.observe(observed, vigenere(secret, observed))
    head = tuple(secret[: len(observed)])
    keys = [
        head + rest
        for rest in product(range(26), repeat=length - len(observed))
        if is_primitive("".join(chr(65 + v) for v in head + rest))
    ]
    fns = [lambda t, k=k: vigenere(k, t) for k in keys]
    _compare(space, fns, ["A", "AB", "AA A", "ABCDE", "AAAAAAA", "ABCDEFGHIJKL"])


def test_vigenere_union_long_queries_exact() -> None:
    """Different key lengths never share an 8+ letter output: the union is exact there."""
    secret = "QXZ"
    fns: list[Any] = []
    for length in (3, 4, 5):
        for rest in product(range(26), repeat=length - 2):
            key = "QX" + "".join(chr(65 + v) for v in rest)
            if is_primitive(key):
                shifts = [ord(c) - 65 for c in key]
                fns.append(lambda t, k=shifts: vigenere(k, t))
    space = ERI.version_space("easy", "vigenere").observe("AB", vigenere([16, 23, 25], "AB"))
    _compare(space, fns, ["ABCDEFGH", "AAAAAAAAAAAA", "HELLO WORLD"])
    short = space.predictive("ABC")  # may overlap across lengths: probabilities stay exact
    counts = _brute(fns, "ABC")
    for y, c in counts.items():
        assert short.prob(y) == pytest.approx(c / len(fns), abs=1e-12)
    assert secret


def test_hill_matches_brute_force() -> None:
    matrices = [
        m
        for m in product(range(26), repeat=4)
        if ((m[0] * m[3] - m[1] * m[2]) % 26) % 2 == 1
        and ((m[0] * m[3] - m[1] * m[2]) % 26) % 13 != 0
        and m != (1, 0, 0, 1)
    ]
    assert len(matrices) == 157_247
    secret = (3, 2, 5, 7)
    x0 = "AN"  # digraph (0, 13): leaves many consistent keys
    kept = [m for m in matrices if hill(m, x0) == hill(secret, x0)]
    space = ERI.version_space("hard", "hill").observe(x0, hill(secret, x0))
    fns = [lambda t, m=m: hill(m, t) for m in kept]
    _compare(space, fns, ["B", "BA", "AB CD", "NANA", "HELLO"])


def test_affine_railfence_matches_brute_force() -> None:
    kind = KINDS["affine_railfence"]
    affine, rails = KINDS["affine"], KINDS["railfence"]
    assert hasattr(affine, "distinct") and hasattr(rails, "distinct")
    fns = [kind.encrypt({**a, **r}) for a in affine.distinct for r in rails.distinct]
    assert len(
        {tuple(f(q) for q in ("ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEF", "AB")) for f in fns}
    ) == len(fns)
    space = kind.space()
    _compare(space, fns, ["AB", "ABC"])
    secret = fns[1234]
    x0 = "HELLO"
    space = space.observe(x0, secret(x0))
    kept = [f for f in fns if f(x0) == secret(x0)]
    _compare(space, kept, ["AB", "ABCDEF", "ZZ TOP"])


def test_enumerated_counts_are_distinct_functions() -> None:
    expected = {"caesar": 25, "affine": 311, "progressive": 650, "railfence": 20, "columnar": 870}
    for kind, n in expected.items():
        assert 2 ** KINDS[kind].log2_h == pytest.approx(n)
    assert 2 ** KINDS["vigenere"].log2_h == pytest.approx(26**3 - 26 + 26**4 - 26**2 + 26**5 - 26)


def test_mixture_view() -> None:
    for level in LEVELS:
        seen: set[str] = set()
        for output in OUTPUT_FORMATS:
            served = ERI.for_interface({"output": output})
            same = {k for k in ERI.kinds(level) if KINDS[k].output_format == output}
            if not same:
                with pytest.raises(FamilyError):
                    served.version_space(level)
                continue
            mix = served.version_space(level)
            assert isinstance(mix, MixtureVersionSpace)
            post = mix.posterior()
            # The agents' prior: the level's kinds with the output format the box states.
            assert set(post) == same
            assert all(p == pytest.approx(1 / len(post)) for p in post.values())
            seen |= same
        assert seen == set(ERI.kinds(level))
    rule = ERI.sample_rule(random.Random(2), "easy", "caesar")
    mix = ERI.version_space("easy")
    for x in ("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "AAAA"):
        mix = mix.observe(x, rule(x))
    # Caesar shifts are also affine maps (a = 1): the posterior splits 1/25 : 1/311.
    post = mix.posterior()
    assert post["caesar"] == pytest.approx(311 / 336)
    assert post["affine"] == pytest.approx(25 / 336)
    assert mix.predictive("HELLO").mode == rule("HELLO")
    assert mix.predictive("HELLO").prob(rule("HELLO")) == pytest.approx(1.0)


def test_easy_mixture_predictive_entropies_are_non_negative() -> None:
    # Its speed is measured in benchmarks/eval/bench_spaces.py, not here.
    rng = random.Random(0)
    pool = ERI.query_pool(rng, "easy", 30)
    rule = ERI.sample_rule(random.Random(7), "easy", "substitution")
    mix = ERI.version_space("easy")
    for x in ("HELLO WORLD", "AB"):
        mix = mix.observe(x, rule(x))
    entropies = [mix.predictive(x).entropy for x in pool]
    assert len(entropies) == 30 and all(h >= 0.0 for h in entropies)


def test_adaptive_pool_beats_fixed_plan() -> None:
    """Greedy expected information over the pool gains at least as much as the fixed plan."""
    gains_adaptive = gains_fixed = 0.0
    for seed in range(6):
        rule = ERI.sample_rule(random.Random(seed), "easy")
        plan = ERI.exploration_plan("easy", 3)
        fixed = ERI.version_space("easy")
        adaptive = ERI.version_space("easy")
        start = adaptive.log2_count()
        for t in range(3):
            fixed = fixed.observe(plan[t], rule(plan[t]))
            pool = ERI.query_pool(random.Random(seed * 10 + t), "easy", 30)
            best = max(pool, key=lambda q: adaptive.predictive(q).entropy)
            adaptive = adaptive.observe(best, rule(best))
        gains_adaptive += start - adaptive.log2_count()
        gains_fixed += start - fixed.log2_count()
    assert gains_adaptive >= gains_fixed - 1e-6


def _reference_hill_table(
    r1: int, r2: int, x: str
) -> tuple[dict[str, int], int, list[tuple[int, int]]]:
    """The pre-grouping Hill predictive: every (row-1 image, row-2 image) pair counted."""
    from blackboxes.families.eri._alphabet import ALPHABET
    from blackboxes.families.eri._hill_space import _bits, _pair_count, digraphs

    pairs = digraphs(x)
    distinct = list(dict.fromkeys(pairs))
    slot = [distinct.index(pq) for pq in pairs]

    def groups(mask: int) -> dict[tuple[int, ...], int]:
        out: dict[tuple[int, ...], int] = {}
        for i in _bits(mask):
            u, v = divmod(i, 26)
            key = tuple((u * p + v * q) % 26 for p, q in distinct)
            out[key] = out.get(key, 0) | 1 << i
        return out

    table: dict[str, int] = {}
    for u, m1 in sorted(groups(r1).items()):
        for v, m2 in sorted(groups(r2).items()):
            w = _pair_count(m1, m2)
            if w > 0:
                table["".join(ALPHABET[u[s]] + ALPHABET[v[s]] for s in slot)] = w
    return table, _pair_count(r1, r2), pairs


@pytest.mark.parametrize("observed", ["", "AN", "HELLO"])
def test_hill_fast_path_matches_reference(observed: str) -> None:
    """Grouped weights give bit-identical entropies and the same support, top and probs."""
    from blackboxes.families.eri._hill_space import HillSpace

    space: Any = ERI.version_space("hard", "hill")
    if observed:
        space = space.observe(observed, hill((3, 2, 5, 7), observed))
    assert isinstance(space, HillSpace)
    queries = ["AB", "PP", "C", "GGGGGGGGGG", "ZEZEZEZE", "ASD", "ABCDEFGHIJKLMNOPQRSTUVWXYZ"]
    for x in queries:
        table, total, _ = _reference_hill_table(space._r1, space._r2, x)
        fresh = HillSpace(space._r1, space._r2).predictive(x)  # no table built yet
        plogp = sum(w * math.log2(w) for w in table.values())
        assert fresh.entropy == math.log2(total) - plogp / total, x  # bit-identical
        for limit in (len(table) - 1, len(table)):
            support = HillSpace(space._r1, space._r2).predictive(x).support(limit)
            if len(table) > limit:
                assert support is None
            else:
                assert support == {y: (y, w / total) for y, w in table.items()}
                assert list(support) == list(table)  # same order: mixtures merge in it
        ranked = sorted(table.items(), key=lambda yw: (-yw[1], yw[0]))
        assert fresh.top(5) == [y for y, _ in ranked[:5]]
        for y, w in ranked[:5] + ranked[-3:]:
            assert fresh.prob(y) == w / total


def test_memoised_letter_predictives_match_fresh_ones() -> None:
    """Compositions reuse one predictive per query of a shared prior letter space."""
    from blackboxes.families.eri._substitution_space import _SubstitutionPredictive
    from blackboxes.families.eri._vigenere_space import _VigenerePredictive

    vig = VigenereLengthSpace.prior(4)
    sub = SubstitutionSpace()
    for x in ("A", "ABCDEFGHIJ", "HELLO WORLD", "AAAA"):
        assert vig.predictive(x) is vig.predictive(x)
        assert vig.predictive(x).entropy == _VigenerePredictive(vig, x).entropy
        assert sub.predictive(x) is sub.predictive(x)
        assert sub.predictive(x).entropy == _SubstitutionPredictive(x, sub._fwd).entropy


def test_letter_chain_counts_distinct_functions() -> None:
    """A chain dedupes keys into functions: a shift then an affine map is an affine map,
    so 25 x 311 keys give the 12 x 26 affine maps (the identity included)."""
    from blackboxes.families.eri._composition import LetterChainKind
    from blackboxes.families.eri._letterwise import AffineKind, CaesarKind, KeywordKind

    assert len(LetterChainKind(CaesarKind(), AffineKind()).distinct) == 12 * 26
    with pytest.raises(ValueError, match="shift"):
        LetterChainKind(CaesarKind(), CaesarKind())
    chain = LetterChainKind(KeywordKind(), CaesarKind())
    images = {chain.encrypt(p)("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for p in chain.all_params()}
    assert len(chain.distinct) == len(images) == 152 * 25
