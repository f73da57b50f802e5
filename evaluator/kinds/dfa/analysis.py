"""A DFA episode as the kind-independent :class:`~evaluator.analysis.EpisodeAnalysis`.

Steps are the calls in order (invalid ones included, as not counted): ``MQ <word>`` with
the answer ``1``/``0``, ``EQ (<n> states)`` with ``accepted`` or the counterexample, each
EQ with the similarity of its hypothesis to the target (Sim_K, K =
:data:`~evaluator.kinds.dfa._defaults.DEFAULT_SIMILARITY_LEN`) and every counted call
with its non-informative kinds (:mod:`evaluator.kinds.dfa.metrics`) in ``note``. The
query keys are ``MQ:<word>`` per counted MQ and ``EQ`` per counted EQ: a hypothesis is
built from the answers, so it is no exploration choice of its own.

Information gathered (``info_total``). A DFA has no tractable version space to count
bits in, so the DFA kind measures information on a [0, 1] scale of its own: the
similarity Sim_K to the target of the DFA that RPNI
(:func:`blackboxes.automata.passive.rpni`, the classic passive learner) builds from ALL
the episode's evidence at its end: every answered MQ and every EQ witness, labelled
against the hypothesis it refuted. An accepted EQ is evidence too: its answer says the
language is exactly the hypothesis's, so an agent that succeeded gathered everything
(``info_total`` 1). An agent that learned nothing scores what RPNI guesses from no
evidence (the empty language: about 0.5, the share of words the target rejects). The
value is computed exactly (``info_exact`` True); it is a measure of the evidence, not of
the agent's own hypotheses (those are ``best_similarity``). At the default budget
factor, on the paper's 2-9-state targets, ``random`` < ``fixed`` < the learners (all 1):
shortlex words cover the short prefixes and suffixes RPNI generalises from, random words
(up to 12 letters) scatter. Measured on a generated 20-box suite (seed 0): 0.909, 0.974,
1. Per state count the gap narrows as targets grow (30 boxes each: 0.950 vs 1.000 at 2
states, 0.891 vs 0.888 at 9), so the order is a property of mixed suites, not of every
size.
"""

from __future__ import annotations

import json

from blackboxes.automata.dfa import DFA
from blackboxes.automata.metrics import similarity
from blackboxes.automata.passive import rpni
from blackboxes.families.dfa import kind_for, level_of
from evaluator.analysis import AnswerView, EpisodeAnalysis, StepView, conversation_of
from evaluator.failures import scored
from evaluator.kinds.dfa._defaults import (
    DEFAULT_BUCKETS,
    DEFAULT_SIMILARITY_LEN,
    Bucket,
    bucket_label,
)
from evaluator.kinds.dfa.metrics import DIRECT_KINDS, DfaEpisodeMetrics, dfa_episode_metrics
from evaluator.kinds.dfa.trajectory import DfaCall, DfaTrajectory
from oracle_bench.errors import EvaluationError

__all__ = [
    "analyse_dfa",
    "dfa_evidence",
    "dfa_information",
    "dfa_score",
    "dfa_setting",
]


def dfa_score(record: DfaTrajectory) -> float | None:
    """1 for an accepted EQ, 0 without one; None for a failed record (not scored)."""
    if record.status != "completed":
        return None
    return 1.0 if record.success else 0.0


def dfa_setting(budget_factor: float) -> str:
    """A DFA run's settings as a label: ``x2``."""
    return f"x{budget_factor:g}"


def dfa_evidence(record: DfaTrajectory) -> dict[str, bool]:
    """Every labelled word the episode revealed: answered MQs (box faults give none) and
    EQ witnesses, labelled ``not hypothesis.accepts(witness)``."""
    sample: dict[str, bool] = {}
    for call in record.counted():
        if call.error is not None:
            continue
        if call.tool == "mq" and call.word is not None and call.member is not None:
            sample[call.word] = call.member
        elif call.tool == "eq" and call.counterexample is not None:
            hypothesis = call.hypothesis_dfa()
            if hypothesis is not None:
                sample[call.counterexample] = not hypothesis.accepts(call.counterexample)
    return sample


def dfa_information(
    record: DfaTrajectory, *, similarity_len: int = DEFAULT_SIMILARITY_LEN
) -> float:
    """The information ``record``'s evidence holds (module docstring): 1 after an
    accepted EQ, else Sim_K(RPNI(evidence), target)."""
    if record.success:
        return 1.0
    if record.measured is not None:  # a served box's record: measured before withholding
        if record.measured.similarity_len != similarity_len or record.measured.information is None:
            raise EvaluationError(
                f"{record.box_id}: the served box measured its information over words up to "
                f"{record.measured.similarity_len} only"
            )
        return record.measured.information
    target = record.target_dfa()
    guess = rpni(dfa_evidence(record), target.alphabet)
    return float(similarity(guess, target, max_len=similarity_len))


def _word(word: str) -> str:
    return word if word else "ε"


def _action(call: DfaCall, hypothesis: DFA | None) -> str:
    if call.tool == "mq" and call.word is not None:
        return f"MQ {_word(call.word)}"
    if call.tool == "eq" and hypothesis is not None:
        return f"EQ ({hypothesis.n} states)"
    what = {"mq": "MQ", "eq": "EQ"}.get(call.tool or "", "call")
    text = " ".join(call.text.split())
    return f"invalid {what}: {text[:80]}{'…' if len(text) > 80 else ''}"


def _result(call: DfaCall) -> str:
    if not call.valid or call.error is not None:
        return call.shown
    if call.tool == "mq":
        return "1" if call.member else "0"
    if call.accepted:
        return "accepted"
    return f"counterexample {json.dumps(call.counterexample, ensure_ascii=False)}"


def _bucket(states: int, buckets: tuple[Bucket, ...]) -> str:
    for lo, hi in buckets:
        if lo <= states <= hi:
            return bucket_label((lo, hi))
    return bucket_label((states, states))


def _metrics(
    record: DfaTrajectory, m: DfaEpisodeMetrics, info: float | None
) -> dict[str, float | None]:
    counted = len(m.non_informative_steps)
    direct = set(DIRECT_KINDS)
    wasted = sum(1 for _, kinds in m.non_informative_steps if direct.intersection(kinds))
    usage = record.usage
    out: dict[str, float | None] = {
        "success": 1.0 if m.success else 0.0,
        "cost": None if m.cost is None else float(m.cost),
        "calls": float(record.queries_used),
        "mq": float(m.mq),
        "eq": float(m.eq),
        "invalid": float(m.invalid),
        "budget_factor": record.budget_factor,
        "reference_cost": float(record.reference_cost),
        "states": float(record.states),
        "delta_vs_ttt": m.delta_vs_ttt,
        "delta_vs_lstar": m.delta_vs_lstar,
        "best_similarity": m.best_similarity,
        "best_step": None if m.best_step is None else float(m.best_step),
        "passive_similarity": info,
        "non_informative": float(wasted),
        "non_informative_rate": wasted / counted if counted else None,
        "planning_failure": 1.0 if m.failure == "planning" else 0.0,
        "reasoning_failure": 1.0 if m.failure == "reasoning" else 0.0,
        "gold_step": None if m.gold_step is None else float(m.gold_step),
        "eq_exceeds_states": 1.0 if m.eq_count_exceeds_states else 0.0,
        "sizes_monotone": 1.0 if m.sizes_monotone else 0.0,
        "llm_calls": None if usage is None else float(usage.calls),
        "input_tokens": None if usage is None else float(usage.input_tokens),
        "tokens": None if usage is None else float(usage.tokens),
        "cost_usd": None if usage is None else usage.cost_usd,
    }
    for kind, count in m.non_informative.items():
        out[f"non_informative_{kind}"] = float(count)
    for name, value in (m.myhill_nerode or {}).items():
        out[f"mn_{name}"] = value
    return out


def analyse_dfa(
    record: DfaTrajectory,
    *,
    buckets: tuple[Bucket, ...] = DEFAULT_BUCKETS,
    similarity_len: int = DEFAULT_SIMILARITY_LEN,
) -> EpisodeAnalysis:
    """``record`` as an :class:`EpisodeAnalysis` (see the module docstring); ``buckets``
    give the state-count bucket label. ``info_total`` is None for an episode that is not
    scored (failed through the box or the infrastructure)."""
    m = dfa_episode_metrics(record, similarity_len=similarity_len)
    sims = dict(m.similarity_curve)
    kinds = dict(m.non_informative_steps)
    info = dfa_information(record, similarity_len=similarity_len) if scored(record) else None
    steps: list[StepView] = []
    answers: list[AnswerView] = []
    keys: list[str] = []
    for call in record.calls:
        hypothesis = call.hypothesis_dfa() if call.valid else None
        counted = call.step is not None
        note = None
        if call.step is not None:
            keys.append(f"MQ:{call.word}" if call.tool == "mq" else "EQ")
            if kinds.get(call.step):
                note = "non-informative: " + ", ".join(kinds[call.step])
        sim = sims.get(call.step) if call.tool == "eq" and call.step is not None else None
        steps.append(
            StepView(
                index=call.index,
                action=_action(call, hypothesis),
                result=_result(call),
                valid=call.valid,
                counted=counted,
                similarity=sim,
                note=note,
            )
        )
        if counted and call.tool == "eq" and hypothesis is not None and call.error is None:
            answers.append(
                AnswerView(
                    label=f"EQ {len(answers) + 1}",
                    given=f"DFA with {hypothesis.n} states",
                    expected=f"DFA with {record.states} states",
                    correct=bool(call.accepted),
                    score=sim,
                )
            )
    return EpisodeAnalysis(
        box_id=record.box_id,
        family=record.family,
        level=level_of(record.states),
        rule_kind=kind_for(record.states),
        bucket=_bucket(record.states, buckets),
        agent=record.agent,
        repetition=record.repetition,
        kind=record.kind,
        setting=dfa_setting(record.budget_factor),
        budget=record.budget,
        status=record.status,
        failure=record.failure,
        error=record.error,
        score=dfa_score(record),
        info_total=info,
        info_exact=True,
        query_keys=keys,
        steps=steps,
        answers=answers,
        intro=record.intro,
        conversation=conversation_of(record),
        metrics=_metrics(record, m, info),
    )
