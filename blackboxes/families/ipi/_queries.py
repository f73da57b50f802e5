"""IPI queries: the triple (secret, probe, u) a box is called with, checked and drawn.

A box's code answers ``blackbox(secret, probe, u)``: the instance's hidden secret and one
probe, both canonical strings of the puzzle, and the caller's uniform ``u`` in [0, 1),
the only randomness a noisy puzzle uses. The family's query domain is these triples.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from blackboxes.box import JSONValue
from blackboxes.puzzles import PuzzleError, PuzzleKind, get_puzzle
from blackboxes.puzzles._base import params_key
from oracle_bench.errors import InvalidQueryError

__all__ = [  # noqa: RUF022 (plain sorted order, tests/test_layout.py)
    "MAX_QUERY_CHARS",
    "Triple",
    "U_TOP",
    "aimed_probes",
    "check_triple",
    "edge_us",
    "is_secret",
    "parse_triple",
    "query_key",
    "random_probe",
    "random_triple",
    "spread_secrets",
]

Triple = tuple[str, str, float]
MAX_QUERY_CHARS = 4000
"""Longest query text parsed at all (a probe is at most 2000 characters)."""
U_TOP = math.nextafter(1.0, 0.0)
"""The largest float below 1: the top edge of u's range."""


@lru_cache(maxsize=8)
def _secrets(name: str, key: str) -> frozenset[str]:
    # Built once per box: the differential test and a served box ask many times.
    kind = get_puzzle(name)
    return frozenset(kind.answers(json.loads(key)))


def is_secret(kind: PuzzleKind, params: Mapping[str, Any], secret: str) -> bool:
    """Whether ``secret`` is one of the puzzle's canonical secrets."""
    return secret in _secrets(kind.name, params_key(params))


def check_triple(kind: PuzzleKind, params: Mapping[str, Any], x: object) -> Triple:
    """``x`` as a canonical triple: a listed secret, a canonical probe, u in [0, 1).

    The probe is parsed leniently (as an agent's would be); the secret must be exact,
    since only the owner writes secrets."""
    if not isinstance(x, (list, tuple)) or len(x) != 3:
        raise InvalidQueryError(f"an IPI query is [secret, probe, u], got {_show(x)}")
    secret, probe, u = x
    if not isinstance(secret, str) or not isinstance(probe, str):
        raise InvalidQueryError(f"an IPI query's secret and probe are strings, got {_show(x)}")
    if isinstance(u, bool) or not isinstance(u, (int, float)) or not 0.0 <= u < 1.0:
        raise InvalidQueryError(f"an IPI query's u is a number in [0, 1), got {_show(u)}")
    if len(secret) > MAX_QUERY_CHARS or not is_secret(kind, params, secret):
        raise InvalidQueryError(f"{_show(secret)} is no secret of this {kind.title} box")
    try:
        canonical = kind.parse_probe(params, probe)
    except PuzzleError as exc:
        raise InvalidQueryError(f"invalid probe: {exc}") from None
    return secret, canonical, float(u)


def parse_triple(kind: PuzzleKind, params: Mapping[str, Any], text: str) -> Triple:
    """A triple from JSON text: ``["secret", "probe", 0.25]`` or an object with the keys
    ``secret``, ``probe`` and ``u``."""
    if not isinstance(text, str):
        raise InvalidQueryError(f"a query must be text, got {type(text).__name__}")
    if len(text) > MAX_QUERY_CHARS:
        raise InvalidQueryError(f"a query is at most {MAX_QUERY_CHARS} characters, got {len(text)}")
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        raise InvalidQueryError(
            'an IPI query is JSON: ["secret", "probe", u] with u in [0, 1)'
        ) from None
    if isinstance(value, dict):
        if set(value) != {"secret", "probe", "u"}:
            raise InvalidQueryError("an IPI query object has exactly the keys secret, probe, u")
        value = [value["secret"], value["probe"], value["u"]]
    return check_triple(kind, params, value)


def query_key(x: JSONValue) -> str:
    """A hashable key of a triple (lists are not hashable)."""
    return json.dumps(x, sort_keys=True)


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# -- drawing triples ---------------------------------------------------------------


def edge_us(kind: PuzzleKind, params: Mapping[str, Any]) -> list[float]:
    """The u values where a box's reading may flip: 0, the top of [0, 1), and each of the
    kind's noise thresholds and the float just below it (a `<` written as `<=`)."""
    out = [0.0, U_TOP]
    for cut in kind.noise_cuts(params):
        out += [cut, math.nextafter(cut, 0.0)]
    return sorted({u for u in out if 0.0 <= u < 1.0})


def spread_secrets(
    kind: PuzzleKind, params: Mapping[str, Any], rng: random.Random, count: int
) -> list[str]:
    """The first, last and middle secrets in answer order, then random ones."""
    n = kind.answer_count(params)
    picks = dict.fromkeys([0, n - 1, n // 2])
    for _ in range(4 * count):
        if len(picks) >= min(count, n):
            break
        picks[rng.randrange(n)] = None
    return [kind.answer_at(params, i) for i in list(picks)[:count]]


def _canonical(kind: PuzzleKind, params: Mapping[str, Any], texts: Sequence[str]) -> list[str]:
    out: dict[str, None] = {}
    for text in texts:
        try:
            out[kind.parse_probe(params, text)] = None
        except PuzzleError:
            continue  # an edge probe the puzzle does not allow (an unlisted form, say)
    return list(out)


def aimed_probes(
    kind: PuzzleKind, params: Mapping[str, Any], secret: str, rng: random.Random
) -> list[str]:
    """Probes at the edges of ``secret``'s feedback: the secret probed with itself (a
    guess), the kind's edge probes (just inside and outside its window, the cells it
    covers, ...), then the kind's candidate probes aimed at it."""
    texts: list[str] = []
    if kind.shares_format:
        texts.append(secret)
    texts += kind.edge_probe_texts(params, secret, rng)
    probes = _canonical(kind, params, texts)
    probes += [p for p in kind.candidate_probes(params, rng, 4, [secret]) if p not in probes]
    return probes


def random_probe(
    kind: PuzzleKind, params: Mapping[str, Any], rng: random.Random, secret: str | None = None
) -> str:
    """A probe drawn from the kind's pools, aimed at ``secret`` now and then; or one the
    kind draws outside its pools (Wordle: any string of letters, not only listed words)."""
    off_pool = kind.off_pool_probe(params, rng, secret)
    if off_pool is not None:
        return off_pool
    plausible = [secret] if secret is not None and rng.random() < 0.5 else []
    pool = kind.candidate_probes(params, rng, 8, plausible) or kind.fixed_plan(params, 8)
    return rng.choice(pool)


def random_triple(kind: PuzzleKind, params: Mapping[str, Any], rng: random.Random) -> Triple:
    """A random secret, a probe from the pools and a uniform u (an edge u at times, for
    a noisy kind)."""
    secret = kind.sample_answer(params, rng)
    probe = random_probe(kind, params, rng, secret)
    u = rng.choice(edge_us(kind, params)) if kind.noisy and rng.random() < 0.2 else rng.random()
    return secret, probe, u
