"""Secret by default, reproducible on request: nothing an agent may see rebuilds a key."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from blackboxes.box import PUBLIC_BOX_FILES, PUBLIC_SUITE_FILES
from blackboxes.families import get_family
from blackboxes.store import load_owner, load_suite, load_suite_boxes, seed_commitment
from evaluator.cli import main as eval_main
from generator import GenerateConfig, generate_suite
from oracle_bench.rng import rng_for

N = 4


def _public_bytes(suite: Path) -> bytes:
    """Everything an agent, a server or a published image may hand out."""
    parts = [(suite / name).read_bytes() for name in PUBLIC_SUITE_FILES]
    for box in sorted((suite / "boxes").iterdir()):
        parts += [(box / name).read_bytes() for name in PUBLIC_BOX_FILES]
    return b"\n".join(parts)


def _rules_from(seed: int, level: str) -> list[dict[str, object]]:
    """The keys anyone with the public code derives from a seed, box by box (the
    generator's own derivation: rng_for(seed, family, level, index))."""
    family = get_family("ERI")
    return [
        dict(family.sample_rule(rng_for(seed, family.name, level, i), level).params)
        for i in range(N)
    ]


@pytest.fixture(scope="module")
def secret_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("secret") / "s"
    generate_suite(GenerateConfig(category="ERI", level="hard", n=N, out=out))
    return out


def test_a_suite_without_seed_keeps_its_seed_owner_side(secret_suite: Path) -> None:
    suite = load_suite(secret_suite)
    owner = load_owner(secret_suite, suite)
    assert suite.seed is None and not owner.public
    assert suite.seed_commitment == seed_commitment(owner.seed)
    assert owner.seed.bit_length() > 64  # 128 random bits: no one tries them all
    assert suite.name == f"ERI-hard-n{N}"  # the name carries no seed
    public = _public_bytes(secret_suite).decode()
    assert str(owner.seed) not in public
    for owner_fact in ("rule_kind", "log2_h", "t_info", "test_seed", "params", "files"):
        assert owner_fact not in public, owner_fact


def test_nothing_an_agent_may_see_lets_it_rebuild_a_key(secret_suite: Path) -> None:
    _, boxes = load_suite_boxes(secret_suite)
    keys = [dict(box.hidden.params) for box in boxes]
    # Every number in the public files, and the usual small seeds, tried as the seed.
    numbers = {int(n) for n in re.findall(rb"\d+", _public_bytes(secret_suite))}
    for seed in sorted(numbers | set(range(64))):
        rebuilt = _rules_from(seed, "hard")
        # A leaked seed rebuilds every box (keys derive from (seed, box index)). One box
        # can match by chance where a kind's key space is small (a Playfair keyword from
        # a word list matched once in a CI run); two in one seed would be about 1e-8.
        matches = sum(a == b for a, b in zip(rebuilt, keys, strict=True))
        assert matches <= 1, (seed, matches)
    # The public digest of a box cannot be matched key by key either: it covers
    # hidden.json, whose held-out seed comes from the secret seed.
    assert all(box.hidden.test_seed not in numbers for box in boxes)


def test_a_public_seed_is_said_and_regenerable(tmp_path: Path) -> None:
    out = tmp_path / "p"
    generate_suite(GenerateConfig(category="ERI", level="hard", n=N, seed=7, out=out))
    suite, boxes = load_suite_boxes(out)
    assert (suite.seed, suite.seed_commitment, suite.name) == (7, None, f"ERI-hard-seed7-n{N}")
    assert [dict(b.hidden.params) for b in boxes] == _rules_from(7, "hard")  # anyone can
    again = tmp_path / "q"
    generate_suite(GenerateConfig(category="ERI", level="hard", n=N, seed=7, out=again))
    for path in sorted(p.relative_to(out) for p in out.rglob("*") if p.is_file()):
        if path.parts[0] != ".generator":
            assert (out / path).read_bytes() == (again / path).read_bytes(), path


def test_an_unfinished_secret_suite_resumes_with_its_own_seed(
    secret_suite: Path, tmp_path: Path
) -> None:
    out = tmp_path / "s"
    shutil.copytree(secret_suite, out)
    before = {p.name: p.read_bytes() for p in (out / "boxes" / "ERI-hard-0003").iterdir()}
    # Make it the journal of a run killed before its last box.
    for public, owner in (("suite.json", "owner.json"),):
        suite, own = json.loads((out / public).read_text()), json.loads((out / owner).read_text())
        suite["boxes"] = suite["boxes"][:-1]
        del own["files"]["ERI-hard-0003"]
        (out / ".suite.partial.json").write_text(json.dumps(suite))
        (out / ".owner.partial.json").write_text(json.dumps(own))
        (out / public).unlink()
        (out / owner).unlink()
    shutil.rmtree(out / "boxes" / "ERI-hard-0003")
    result = generate_suite(GenerateConfig(category="ERI", level="hard", n=N, out=out))
    assert result.skipped == [f"ERI-hard-000{i}" for i in range(3)]
    after = {p.name: p.read_bytes() for p in (out / "boxes" / "ERI-hard-0003").iterdir()}
    assert after == before  # the same secret seed, the same box
    assert load_suite(out) == load_suite(secret_suite)


def test_the_summary_says_whether_the_suite_seed_is_public(
    secret_suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    args = ["1@1", "--suite", str(secret_suite), "--agent", "random", "--out", str(out)]
    assert eval_main(args) == 0
    assert "suite seed: secret" in capsys.readouterr().out
    summary = json.loads((out / "summary.json").read_text())
    assert summary["suite_seed"] == "secret"
    assert (out / "summary.csv").read_text().splitlines()[1].split(",")[1] == "secret"
