"""``oracle-eval --env``: a served suite evaluated from the client gives the local run's
trajectories (with what the server withholds left out) and summaries, byte for byte, for
every family; resumes; and survives a hostile server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evaluator.dataset import BoxDataset
from evaluator.runner import evaluate_suite
from evaluator.serve import BoxServer
from evaluator.spec import parse_spec
from oracle_bench.errors import UsageError
from providers.loopback import LoopbackServer, ScriptedReply
from sandbox.serve import JsonService, Request, Route

# family, level, spec (None: DFA), agents
CASES = [
    ("ERI", "easy", "3@1", ["adaptive", "random", "fixed"]),
    ("CRI", "hard", "3@1", ["adaptive", "random"]),
    ("CII", "hard", "2@1", ["adaptive", "fixed"]),
    ("PSI", "easy", "2@1", ["random"]),
    ("IPI", "hard", "2@1", ["adaptive", "random", "fixed"]),
    ("GSI", "easy", "1@1", ["adaptive", "random"]),
    ("DFA", "easy", None, ["ttt", "random", "fixed"]),
]


@pytest.fixture(scope="module")
def suites(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    from generator import GenerateConfig, generate_suite

    root = tmp_path_factory.mktemp("served-suites")
    made = {}
    for family, level, _, _ in CASES:
        extra: dict[str, Any] = {"states": (2, 4)} if family == "DFA" else {}
        out = root / family
        generate_suite(GenerateConfig(category=family, level=level, n=2, seed=3, out=out, **extra))
        made[family] = out
    return made


def _compare(local: Path, remote: Path, suite: Path, spec: str | None) -> int:
    """Asserts the remote run equals the local one withheld; the number of records whose
    withholding changed something."""
    data = BoxDataset(suite, spec=spec)
    kind, settings = data.kind, data.settings
    names = sorted(p.name for p in (local / "trajectories").iterdir())
    assert names == sorted(p.name for p in (remote / "trajectories").iterdir())
    changed = 0
    for name in names:
        record = kind.read_record(local / "trajectories" / name)
        kind.save_record(kind.withhold(record, settings), local / "withheld.json")
        withheld = (local / "withheld.json").read_bytes()
        assert (remote / "trajectories" / name).read_bytes() == withheld, name
        changed += withheld != (local / "trajectories" / name).read_bytes()
    for name in ("summary.json", "summary.csv"):
        assert (remote / name).read_bytes() == (local / name).read_bytes(), name
    return changed


@pytest.mark.parametrize(("family", "level", "spec", "agents"), CASES, ids=[c[0] for c in CASES])
def test_a_served_suite_gives_the_local_run(
    family: str,
    level: str,
    spec: str | None,
    agents: list[str],
    suites: dict[str, Path],
    tmp_path: Path,
) -> None:
    suite = suites[family]
    evaluate_suite(suite, agents, spec, None, 0, tmp_path / "local")
    options = {} if spec is None else {"spec": parse_spec(spec)}
    with BoxServer(suite, options=options) as server:
        result = evaluate_suite(
            None, agents, spec, None, 0, tmp_path / "remote", env=server.url, concurrency=2
        )
        assert result.manifest.executed == 2 * len(agents)
        run = json.loads((tmp_path / "remote" / "run.json").read_text())
        assert run["arguments"]["suite_dir"] == server.url
        # resume: everything is done already
        again = evaluate_suite(None, agents, spec, None, 0, tmp_path / "remote", env=server.url)
        assert (again.manifest.executed, again.manifest.skipped) == (0, 2 * len(agents))
    changed = _compare(tmp_path / "local", tmp_path / "remote", suite, spec)
    # what the server withholds: expected outputs, secrets, targets (the games hold none)
    assert changed == (0 if family == "GSI" else 2 * len(agents))
    text = "".join(p.read_text() for p in (tmp_path / "remote" / "trajectories").iterdir())
    hidden = json.loads(
        (
            suite / "boxes" / sorted(p.name for p in (suite / "boxes").iterdir())[0] / "hidden.json"
        ).read_text()
    )
    if family == "DFA":
        assert '"target":{}' in text.replace(" ", "")
        assert json.dumps(hidden["params"]["delta"]) not in text


def test_an_llm_agent_through_a_served_suite(
    suites: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from evaluator.llm_agents import LlmAgentSettings

    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    suite = suites["ERI"]
    script = [ScriptedReply(text=t) for t in ("HELLO", "ABC XYZ", "QQQ", *["1 2"] * 12)]
    with LoopbackServer(script, per_conversation=True) as llm:
        settings = LlmAgentSettings(base_url=llm.openai_base_url, protocol="text")
        evaluate_suite(suite, ["openai/m"], "3@1", None, 0, tmp_path / "local", llm=settings)
        with BoxServer(suite, options={"spec": parse_spec("3@1")}) as server:
            evaluate_suite(
                None,
                ["openai/m"],
                "3@1",
                None,
                0,
                tmp_path / "remote",
                env=server.url,
                llm=settings,
            )
    assert _compare(tmp_path / "local", tmp_path / "remote", suite, "3@1") == 2
    record = json.loads(next((tmp_path / "remote" / "trajectories").iterdir()).read_text())
    assert record["llm_calls"] and record["conversation"]


def test_other_settings_are_refused_up_front(suites: dict[str, Path], tmp_path: Path) -> None:
    from evaluator.api import plan_run

    with BoxServer(suites["ERI"], options={"spec": parse_spec("3@1")}) as server:
        assert plan_run(env=server.url, agents=["adaptive"]).label == "3@1"
        with pytest.raises(UsageError, match="other settings"):
            plan_run(env=server.url, spec="4@1")
        with pytest.raises(UsageError, match="not both"):
            plan_run(suites["ERI"], env=server.url)


def _hostile(events: dict[str, Any], suite: Path) -> Iterator[str]:
    """A server that describes ``suite`` truthfully, then answers episodes with ``events``."""
    with BoxServer(suite, options={"spec": parse_spec("3@1")}) as honest:
        described = honest._describe(None)  # type: ignore[arg-type]
        box = honest._box

        def episode(request: Request) -> Any:
            return events

        routes = [
            Route("GET", "/", lambda r: described),
            Route("GET", "/boxes/{box}", box),
            Route("POST", "/episodes", episode),
            Route("POST", "/episodes/{episode}/reply", episode),
            Route("DELETE", "/episodes/{episode}", lambda r: {}),
        ]
        with JsonService(routes) as fake:
            yield fake.url


@pytest.mark.parametrize(
    "events",
    [
        {"episode_id": "e", "event": {"type": "call", "id": 1, "method": "__class__", "args": []}},
        {
            "episode_id": "e",
            "event": {
                "type": "call",
                "id": 1,
                "method": "query",
                "args": [{"__dc": "os:system", "f": {}}],
            },
        },
        {
            "episode_id": "e",
            "event": {
                "type": "call",
                "id": 1,
                "method": "query",
                "args": [{"__m": "subprocess:Popen", "j": "{}"}],
            },
        },
        {"episode_id": "e", "event": {"type": "end", "record": {"not": "a record"}}},
        {"episode_id": "e", "event": "nonsense"},
        {"episode_id": "e"},
    ],
)
def test_a_hostile_server_is_a_typed_error(
    events: dict[str, Any], suites: dict[str, Path], tmp_path: Path
) -> None:
    from oracle_bench.errors import OracleBenchError

    for url in _hostile(events, suites["ERI"]):
        with pytest.raises(OracleBenchError) as info:
            evaluate_suite(None, ["adaptive"], "3@1", None, 0, tmp_path / "run", env=url)
        assert "\n" not in str(info.value)
        assert not list((tmp_path / "run" / "trajectories").glob("*.json"))
