"""Helpers for the evaluator tests: real ERI suites written to tmp dirs, scripted agents.

Suites are built here (not by the generator) with blackboxes.store and the family's
own templates, so the evaluator is tested against the real box format, the real
sandbox and the real ERI family.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import templates
from blackboxes.box import Level, Provenance, SuiteInfo, SuiteOwnerInfo
from blackboxes.families import Family, Rule, get_family
from blackboxes.store import Box, write_box, write_suite
from evaluator.kinds.turns.agents import Briefing, Observation, Question
from oracle_bench import __version__, rng_for, seed_for

SuiteBuilder = Callable[..., Path]


def build_suite(
    root: Path,
    *,
    n: int,
    seed: int = 0,
    level: Level = "easy",
    family_name: str = "ERI",
    name: str | None = None,
    kinds: list[str] | None = None,
    code_override: dict[int, str] | None = None,
) -> Path:
    """Write a suite of ``n`` boxes (kinds cycled from ``kinds`` if given) and return its dir."""
    family = get_family(family_name)
    name = name or f"{family_name.lower()}-{level}-s{seed}-n{n}"
    suite_dir = root / name
    written = []
    for i in range(n):
        rng = rng_for(seed, "test-suite", family.name, level, i)
        kind = kinds[i % len(kinds)] if kinds else None
        rule = family.sample_rule(rng, level, kind)
        template, context = family.code_template(rule)
        code = templates.render(template, **context)
        if code_override and i in code_override:
            code = code_override[i]
        box_id = f"{family.name.lower()}-{level}-{i:03d}"
        hidden = family.hidden_info(rule, seed_for(seed, "test-items", i))
        provenance = Provenance(
            backend="test", tool_version=__version__, accepted=True, attempts=[]
        )
        info, facts = family.box_records(box_id, rule)
        written.append(write_box(suite_dir, info, facts, code, hidden, provenance))
    write_suite(
        suite_dir,
        SuiteInfo(
            name=name,
            seed=seed,
            family=family.name,
            level=level,
            tool_version=__version__,
            backend="test",
            boxes=[w.entry for w in written],
        ),
        SuiteOwnerInfo(seed=seed, public=True, files={w.entry.id: w.files for w in written}),
    )
    return suite_dir


@pytest.fixture
def eri() -> Family:
    return get_family("ERI")


def reference_rule(family: Family, box: Box) -> Rule:
    """The trusted rule of a box (tests only: agents never see hidden.json)."""
    return family.rule_from_params(box.hidden.rule_kind, box.info.level, box.hidden.params)


class ScriptedAgent:
    """A test agent: fixed replies for exploration, a callable for answers; logs every call."""

    def __init__(
        self,
        replies: list[str],
        answer: Callable[[Question], str],
    ) -> None:
        self.replies = list(replies)
        self.answer_fn = answer
        self.calls: list[tuple[str, Any]] = []
        self.observations: list[Observation] = []
        self.feedbacks: list[tuple[bool, str]] = []
        self.questions: list[Question] = []

    def start(self, briefing: Briefing) -> None:
        self.calls.append(("start", briefing))

    def query(self, banner: str) -> str:
        self.calls.append(("query", banner))
        return self.replies.pop(0) if self.replies else "A"

    def observe(self, observation: Observation) -> None:
        self.calls.append(("observe", observation))
        self.observations.append(observation)

    def begin_evaluation(self, message: str) -> None:
        self.calls.append(("begin_evaluation", message))

    def answer(self, question: Question) -> str:
        self.calls.append(("answer", question))
        self.questions.append(question)
        return self.answer_fn(question)

    def feedback(self, correct: bool, message: str) -> None:
        self.calls.append(("feedback", correct))
        self.feedbacks.append((correct, message))

    def notes(self) -> list[str]:
        return []


# Fixtures rather than imports: test modules cannot import conftest under every
# pytest import mode, and tests/ has no package __init__ (tests/evaluator would
# shadow the real ``evaluator`` package).
@pytest.fixture(scope="session")
def suite_builder() -> SuiteBuilder:
    return build_suite


@pytest.fixture(scope="session")
def scripted() -> type[ScriptedAgent]:
    return ScriptedAgent


@pytest.fixture(scope="session")
def reference() -> Callable[[Family, Box], Rule]:
    return reference_rule
