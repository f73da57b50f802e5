"""Counterfactual twins: the same boxes with other keys, to see whether queries respond.

A feedback-independent agent asks the same queries whatever the box answers; an adaptive
one changes course once an answer differs. To tell them apart, ``oracle-eval
--counterfactual`` plays every episode of a run a second time against a *twin* of its box
and compares the two query sequences (:mod:`evaluator.analysis.tiers`).

A box's twin keeps everything the agent can see (box.json: its id, intro, schemas and
budget) and everything owner-side that describes it (facts.json: rule kind, log2|H|,
T_info), and replaces the rule itself: a fresh key of the same rule kind, drawn by the
family from ``rng_for(seed, "counterfactual", suite, box id, attempt)`` (redrawn while it
equals the original's), its code rendered from the kind's trusted template like the
procedural backend's, and a fresh held-out seed (which also draws a game's noise).
Families whose rules are public (``Family.hidden_rule`` False: a puzzle's rules are in
its intro) keep the rule; the fresh held-out seed draws other secrets.

Since the box id and the run seed are unchanged, every agent draws the
same random stream in both episodes (agents seed from run seed, agent, box id and
repetition): any difference in the queries comes from the answers.

The same command also replays the run with another run seed on the original boxes
(``RUN/counterfactual/reseeded``): a random agent's queries change with its seed, a
planned one's do not.

The twin suite is written next to the run (``RUN/counterfactual/suite``), with the same
name and seed as the original, so that nothing an agent is shown differs; its
provenance says ``counterfactual``. Boxes without a trusted reference rule (LLM-designed
ones) have no twin: they are left out, with a warning.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from blackboxes.box import BoxEntry, HiddenInfo, Provenance, SuiteInfo, SuiteOwnerInfo
from blackboxes.families import Family, get_family
from blackboxes.store import Box, load_owner, load_suite_boxes, write_box, write_suite
from oracle_bench.errors import UsageError
from oracle_bench.rng import rng_for, seed_for
from templates import render

if TYPE_CHECKING:
    from evaluator.api import RunPlan

__all__ = [
    "COUNTERFACTUAL_DIR",
    "MAX_TWIN_DRAWS",
    "counterfactual_family",
    "counterfactual_plan",
    "counterfactual_run_dir",
    "reseeded_plan",
    "reseeded_run_dir",
    "reseeded_seed",
    "twin_box",
    "write_twin_suite",
]

log = logging.getLogger(__name__)

COUNTERFACTUAL_DIR = "counterfactual"
"""The folder under a run that holds the twin suite (``suite``) and its run (``run``)."""
MAX_TWIN_DRAWS = 16
"""Draws of a twin key before giving up on a kind too small to have another key."""


def counterfactual_family(suite: SuiteInfo) -> Family:
    """The suite's family configured with the options it was generated with."""
    options = {
        key: tuple(value) if isinstance(value, list) else value
        for key, value in suite.options.items()
        if key != "llm"
    }
    return get_family(suite.family).configure(**options)


def twin_box(family: Family, suite: SuiteInfo, box: Box, seed: int) -> tuple[str, HiddenInfo]:
    """The code and hidden.json of ``box``'s twin: a fresh key of its rule kind.

    Raises :class:`UsageError` when the box has no reference rule or its kind has no
    other key.
    """
    if not box.facts.has_reference:
        raise UsageError(f"box {box.info.id} has no reference rule (LLM-designed): no twin")
    original = dict(box.hidden.params)
    for attempt in range(MAX_TWIN_DRAWS):
        rng = rng_for(seed, "counterfactual", suite.name, box.info.id, attempt)
        if family.hidden_rule:
            rule = family.sample_rule(rng, box.info.level, box.facts.rule_kind)
            if dict(rule.params) == original:
                continue
        else:
            # The rules are public (a puzzle's): the twin keeps them, and its held-out
            # seed draws other secrets.
            rule = family.rule_from_params(box.facts.rule_kind, box.info.level, original)
        test_seed = seed_for(seed, "counterfactual-test", suite.name, box.info.id, attempt)
        if test_seed == box.hidden.test_seed:
            continue
        template, context = family.code_template(rule)
        return render(template, **context), family.hidden_info(rule, test_seed)
    raise UsageError(
        f"box {box.info.id}: the rule kind {box.facts.rule_kind!r} gave no other key in "
        f"{MAX_TWIN_DRAWS} draws: no twin"
    )


def write_twin_suite(suite_dir: Path, out_dir: Path, *, seed: int) -> tuple[Path, list[str]]:
    """Write the twin of the suite at ``suite_dir`` into ``out_dir``; (its folder, the ids
    of the boxes left out). Rewriting gives byte-identical files. Raises
    :class:`UsageError` when no box has a twin."""
    suite, boxes = load_suite_boxes(Path(suite_dir))
    owner = load_owner(Path(suite_dir), suite)
    family = counterfactual_family(suite)
    out = Path(out_dir)
    entries: list[BoxEntry] = []
    files: dict[str, dict[str, str]] = {}
    left_out: list[str] = []
    for box in boxes:
        try:
            code, hidden = twin_box(family, suite, box, seed)
        except UsageError as exc:
            log.warning("%s; left out of the counterfactual", exc)
            left_out.append(box.info.id)
            continue
        provenance = Provenance(
            backend="counterfactual",
            tool_version=box.provenance.tool_version,
            accepted=True,
            attempts=[],
            sandbox_layers=list(box.provenance.sandbox_layers),
        )
        written = write_box(out, box.info, box.facts, code, hidden, provenance)
        entries.append(written.entry)
        files[box.info.id] = written.files
    if not entries:
        raise UsageError(f"{suite_dir}: no box has a counterfactual twin")
    twin_suite = suite.model_copy(
        update={"boxes": entries, "rejected": [], "backend": "counterfactual"}
    )
    twin_owner = SuiteOwnerInfo(seed=owner.seed, public=owner.public, files=files)
    write_suite(out, twin_suite, twin_owner)
    return out, left_out


def counterfactual_run_dir(run_dir: Path) -> Path:
    """Where the counterfactual run of ``run_dir`` lives (whether or not it exists)."""
    return Path(run_dir) / COUNTERFACTUAL_DIR / "run"


def reseeded_run_dir(run_dir: Path) -> Path:
    """Where the reseeded replay of ``run_dir`` lives (whether or not it exists)."""
    return Path(run_dir) / COUNTERFACTUAL_DIR / "reseeded"


def reseeded_seed(seed: int) -> int:
    """The run seed of the reseeded replay: another stream for every agent."""
    return seed_for(seed, "reseeded") % 2**31


def reseeded_plan(plan: RunPlan) -> RunPlan:
    """The same boxes, agents and settings with another run seed, into
    ``<run>/counterfactual/reseeded``: the agents' own randomness changes, the boxes do
    not, so a query plan that stays the same is the agent's, not chance's."""
    from dataclasses import replace

    return replace(plan, seed=reseeded_seed(plan.seed), out_dir=reseeded_run_dir(plan.out_dir))


def counterfactual_plan(plan: RunPlan) -> RunPlan:
    """The counterfactual companion of a checked run: the same agents, seed, settings and
    repetitions on the twin suite (written, or rewritten identically, into
    ``<run>/counterfactual/suite``), into ``<run>/counterfactual/run``. Resumable like any
    run. Raises :class:`UsageError` when no box has a twin."""
    from dataclasses import replace

    twin_dir, _ = write_twin_suite(
        plan.suite_dir, Path(plan.out_dir) / COUNTERFACTUAL_DIR / "suite", seed=plan.seed
    )
    return replace(plan, suite_dir=twin_dir, out_dir=counterfactual_run_dir(plan.out_dir))
