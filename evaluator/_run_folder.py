"""A run folder belongs to one run: its default name, its definition, its one writer.

* The default folder of a suite is ``runs/<suite name>-<8 hex>``, the hex digits hashing
  the suite's folder (resolved) and the sha256 of its suite.json: two suites of the same
  name in different folders, or a suite regenerated in place, never share one.
* ``definition.json`` records what defines the run's results: the suite (name and
  suite.json digest), the kind of episode, the spec or budget factor, the feedback mode,
  the seed and the episode settings (``--invalid-turns``, LLM protocol, history, model
  options...). It is written when the run starts; a later command into the folder whose
  definition differs is refused (:class:`UsageError`, exit 2) naming the folder and the
  first difference. Agents, repetitions, concurrency, shards, budgets and base URLs may
  differ: they change what is run, not what a result means. Episode settings are
  compared where both runs have them (an LLM agent added to a baseline run brings its
  settings; they are recorded from then on).
* One writer at a time: :class:`oracle_bench.lock.FolderLock` on ``.lock`` (per shard:
  ``.lock.shard-<i>-of-<n>``, so shards writing their own files share a folder).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from blackboxes.box import SuiteInfo
from evaluator.kinds import manifest_kind
from oracle_bench.errors import UsageError
from oracle_bench.jsonio import atomic_write_text, canonical_json, sha256_hex

__all__ = [
    "DEFINITION_FILE",
    "RunDefinition",
    "claim_folder",
    "default_run_root",
    "episode_settings",
    "lock_name",
]

DEFINITION_FILE = "definition.json"
_CORE = (
    "kind",
    "suite",
    "suite_json_sha256",
    "spec",
    "feedback",
    "budget_factor",
    "options",
    "seed",
)
_LABELS = {
    "kind": "episodes of kind",
    "suite": "suite",
    "suite_json_sha256": "suite.json sha256",
    "spec": "spec",
    "feedback": "--feedback",
    "budget_factor": "--budget-factor",
    "options": "settings",
    "seed": "--seed",
}


class RunDefinition(BaseModel):
    """definition.json: what the results of a run folder mean (see the module docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: Literal[1] = 1
    kind: str
    """The kind of episode (``evaluator.kinds``)."""
    suite: str
    suite_json_sha256: str
    spec: str | None = None
    """Turn@shot runs: ``20@2``."""
    feedback: str | None = None
    budget_factor: float | None = None
    """DFA runs."""
    options: dict[str, Any] | None = None
    """The settings of a kind with settings beyond the fields above."""
    seed: int
    settings: dict[str, Any] = Field(default_factory=dict)
    """Episode settings by flag, as trajectories record them."""


def default_run_root(suite_dir: Path, suite: SuiteInfo, suite_json_sha256: str) -> Path:
    """``runs/<suite name>-<8 hex of the suite's folder and suite.json digest>``."""
    where = str(Path(suite_dir).resolve())
    tag = sha256_hex(f"{where}\n{suite_json_sha256}")[:8]
    return Path("runs") / f"{suite.name}-{tag}"


def lock_name(suffix: str) -> str:
    """The lock file of a run (``suffix``: a shard's ``.shard-<i>-of-<n>`` or "")."""
    return f".lock{suffix}"


def _show(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True)


def _first_difference(theirs: RunDefinition, mine: RunDefinition) -> str | None:
    a, b = theirs.model_dump(mode="json"), mine.model_dump(mode="json")
    for key in _CORE:
        if a[key] != b[key]:
            what = _LABELS[key]
            if key == "suite_json_sha256":
                return f"{what} {str(a[key])[:12]}..., not {str(b[key])[:12]}..."
            if a[key] is None or b[key] is None:
                return f"{what} {_show(a[key]) if a[key] is not None else '(none)'}, not " + (
                    _show(b[key]) if b[key] is not None else "(none)"
                )
            return f"{what} {_show(a[key])}, not {_show(b[key])}"
    for flag in sorted(set(a["settings"]) & set(b["settings"])):
        if a["settings"][flag] != b["settings"][flag]:
            return f"{flag} {_show(a['settings'][flag])}, not {_show(b['settings'][flag])}"
    return None


def _legacy(out_dir: Path) -> RunDefinition | None:
    """The definition of a run folder written before definition.json existed, from its
    manifests (run.json, run.shard-*.json); None if it has none."""
    for path in sorted(out_dir.glob("run*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            args = data["arguments"]
            kind = manifest_kind(data)
            if kind is None:
                continue
            return RunDefinition(
                kind=kind.name,
                suite=data["suite"],
                suite_json_sha256=data["suite_json_sha256"],
                spec=args.get("spec"),
                feedback=args.get("feedback"),
                budget_factor=args.get("budget_factor"),
                seed=args["seed"],
                settings=episode_settings(args),
            )
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return None


def episode_settings(args: dict[str, Any]) -> dict[str, Any]:
    """The settings that shape episodes beyond what a trajectory's header says, by flag,
    from a manifest's ``arguments``: recorded in each trajectory (``settings``) and in the
    definition, and compared on resume."""
    found: dict[str, Any] = {}
    if args.get("invalid_turns") is not None:
        found["--invalid-turns"] = args["invalid_turns"]
    if args.get("max_reasks") is not None:
        found["--max-reasks"] = args["max_reasks"]
    llm = args.get("llm")
    if isinstance(llm, dict):
        found["--protocol"] = llm.get("protocol")
        found["--history"] = llm.get("history")
        found["--model-option"] = llm.get("options") or {}
        found["--max-reasks (LLM)"] = llm.get("max_reasks")
    return found


def _has_content(out_dir: Path) -> bool:
    """Anything but our own hidden files (locks, the call cache)."""
    return any(not child.name.startswith(".") for child in out_dir.iterdir())


def claim_folder(out_dir: Path, mine: RunDefinition) -> None:
    """Refuse ``out_dir`` if it holds another run, else record ``mine`` in it.

    Call with the folder's lock held. Raises :class:`UsageError` naming the folder and
    the first difference; a folder with files but no run is refused too.
    """
    path = out_dir / DEFINITION_FILE
    theirs: RunDefinition | None = None
    if path.is_file():
        try:
            theirs = RunDefinition.model_validate_json(path.read_bytes())
        except ValueError:
            raise UsageError(
                f"{path} is unreadable: it does not say which run {out_dir} holds; "
                "use another --out"
            ) from None
    elif out_dir.is_dir() and _has_content(out_dir):
        theirs = _legacy(out_dir)
        if theirs is None:
            raise UsageError(
                f"{out_dir} is not empty and holds no oracle-eval run: "
                "use a new or empty folder as --out"
            )
    if theirs is not None:
        problem = _first_difference(theirs, mine)
        if problem is not None:
            raise UsageError(
                f"{out_dir} holds another run ({problem}): resume it with the same "
                "arguments, or use another --out"
            )
        merged = {**mine.settings, **theirs.settings}
        if merged == theirs.settings and path.is_file():
            return
        mine = theirs.model_copy(update={"settings": merged})
    atomic_write_text(path, canonical_json(mine.model_dump(mode="json")))
