"""Generating GSI suites: verified opponent boxes, byte-identical per seed, secrets kept."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import pytest

from blackboxes.families import family_for_box, get_family
from blackboxes.families.gsi import GsiFamily
from blackboxes.games import get_strategy
from blackboxes.store import load_suite_boxes
from generator import GenerateConfig, generate_suite
from generator.cli import main
from oracle_bench.rng import seed_for
from templates import render

# Seeds whose first boxes are quick to solve (no 10-card decks, no long frequency games).
SUITES = {"easy": (4, 3), "hard": (3, 3)}


def _tree(root: Path) -> dict[Path, bytes]:
    return {p.relative_to(root): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module", params=sorted(SUITES))
def suite(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    level: str = request.param
    seed, n = SUITES[level]
    out = tmp_path_factory.mktemp(f"gsi-{level}") / "suite"
    generate_suite(GenerateConfig(category="GSI", level=level, n=n, seed=seed, out=out))  # type: ignore[arg-type]
    return out


def test_same_seed_same_suite_byte_for_byte(suite: Path, tmp_path: Path) -> None:
    info, _ = load_suite_boxes(suite)
    seed, n = SUITES[info.level]
    again = tmp_path / "again"
    generate_suite(GenerateConfig(category="GSI", level=info.level, n=n, seed=seed, out=again))
    assert _tree(again) == _tree(suite)


def test_every_box_is_verified_and_keeps_its_strategy_owner_side(suite: Path) -> None:
    info, boxes = load_suite_boxes(suite)
    seed, n = SUITES[info.level]
    assert info.family == "GSI" and len(boxes) == n
    family = get_family("GSI")
    kinds = [b.facts.rule_kind for b in boxes]
    assert len(set(kinds)) == n  # balanced: a block of kinds, none twice
    for i, box in enumerate(boxes):
        assert box.provenance.accepted
        [attempt] = box.provenance.attempts
        assert attempt.verdict == "correct" and attempt.differential_mismatches == 0
        assert attempt.differential_inputs >= 200 and all(attempt.checks.values())
        rule = family.rule_from_params(box.hidden.rule_kind, box.info.level, box.hidden.params)
        template, ctx = family.code_template(rule)
        assert box.code == render(template, **ctx)
        assert (box.info, box.facts) == family.box_records(box.info.id, rule)
        test_seed = seed_for(seed, "GSI", info.level, i, "test")
        assert box.hidden == family.hidden_info(rule, test_seed)
        served = cast(GsiFamily, family_for_box(box.info))
        strategy, params = served.true_opponent(box.hidden)
        assert f"{served.game.name}/{strategy.name}" == box.facts.rule_kind
        public = box.info.model_dump_json().lower()
        kind = get_strategy(box.hidden.params["kind"])
        for secret in (
            box.facts.rule_kind,
            kind.name,
            kind.title,
            kind.describe(served.game, params),
        ):
            assert secret.lower() not in public
        assert served.agent_space(served.evaluation_settings[0]).contains(kind.name, params)


def test_the_cli_generates_gsi(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cli"
    assert (
        main(["--category", "GSI", "--level", "easy", "-n", "1", "--seed", "4", "--out", str(out)])
        == 0
    )
    info, boxes = load_suite_boxes(out)
    assert info.name.startswith("GSI-easy") and boxes[0].info.id == "GSI-easy-0000"
    assert "1 verified box" in capsys.readouterr().out
