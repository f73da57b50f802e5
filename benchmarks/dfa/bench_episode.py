"""What a DFA episode costs on top of the learner: protocol, text calls, the sandbox.

For uniform minimal targets of each size, the ``ttt`` learner runs four ways, side by side
on the same targets in one run:

- ``bare``:     ``learn("ttt", TargetOracle(target))``: the learner and the teacher alone;
- ``episode``:  ``run_dfa_episode`` with the ``ttt`` agent, MQs answered in-process
                (budget, records, the trajectory model);
- ``text``:     the same calls replayed as JSON text through ``DfaEnvironment.call``
                (what an LLM agent's calls cost to parse and answer);
- ``sandbox``:  ``run_dfa_episode`` with MQs answered by the box's code in its sandbox
                worker (worker start-up excluded, reported on its own line).

Printed: median milliseconds per episode, median microseconds per counted call, and the
ratios episode/bare, text/episode and sandbox/episode.

Usage: python benchmarks/dfa/bench_episode.py [--quick]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run from a checkout

import templates
from blackboxes.automata.dfa import DFA
from blackboxes.automata.learners import learn
from blackboxes.automata.oracle import TargetOracle
from blackboxes.automata.sampling import sample_minimal_dfa
from blackboxes.box import (
    BoxFacts,
    BoxInfo,
    DfaBaselineCost,
    DfaBoxInfo,
    DfaFacts,
    HiddenInfo,
    Provenance,
)
from blackboxes.store import Box
from evaluator.kinds.dfa.agents import TttAgent
from evaluator.kinds.dfa.protocol import (
    DfaAgentContext,
    DfaEnvironment,
    in_process_membership,
    run_dfa_episode,
)
from evaluator.kinds.dfa.trajectory import DfaTrajectory
from oracle_bench.rng import rng_for
from sandbox import SandboxWorker

SIZES = (5, 10, 20, 50)
SEED = 2027
MODE = "short_random"


def make_box(target: DFA, i: int) -> Box:
    costs = {}
    for name in ("lstar", "kv", "ttt"):
        result = learn(name, TargetOracle(target, MODE))
        costs[name] = DfaBaselineCost(mq=result.mq, eq=result.eq)
    info = BoxInfo(
        id=f"bench-{target.n}-{i}",
        family="DFA",
        level="easy",
        task_intro="",
        input_schema="",
        output_schema="",
        dfa=DfaBoxInfo(
            alphabet=list(target.alphabet),
            reference_cost=min(costs["lstar"].total, costs["ttt"].total),
        ),
    )
    facts = BoxFacts(
        rule_kind=f"states-{target.n}",
        log2_h=None,
        log2_y=1.0,
        t_info=None,
        dfa=DfaFacts(states=target.n, counterexamples=MODE, baselines=costs),
    )
    hidden = HiddenInfo(
        rule_kind=facts.rule_kind, params=target.to_table(), description="", test_seed=0
    )
    code = templates.render(
        "code/dfa/membership.py.j2",
        alphabet="".join(target.alphabet),
        delta=[list(r) for r in target.delta],
        accepting=[q for q in range(target.n) if target.accepting[q]],
    )
    provenance = Provenance(backend="bench", tool_version="0", accepted=True, attempts=[])
    return Box(info, facts, code, hidden, provenance, digest="0" * 64, path=Path("."))


class Replay:
    """Replays an episode's counted calls as JSON text."""

    def __init__(self, traj: DfaTrajectory) -> None:
        self.texts = []
        for call in traj.counted():
            if call.tool == "mq":
                self.texts.append(json.dumps({"tool": "membership_query", "word": call.word}))
            else:
                dfa = call.hypothesis_dfa()
                assert dfa is not None
                self.texts.append(json.dumps({"tool": "equivalence_query", "dfa": dfa.to_json()}))

    def play(self, env: DfaEnvironment) -> None:
        for text in self.texts:
            env.call(text)


def agent() -> TttAgent:
    return TttAgent(DfaAgentContext(("a", "b"), 1, "", rng_for(0, "bench")))


def timed(fn: object) -> float:
    start = time.perf_counter()
    fn()  # type: ignore[operator]
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer targets, sizes up to 20")
    args = parser.parse_args()
    count = 5 if args.quick else 20
    sizes = SIZES[:3] if args.quick else SIZES
    print(f"ttt agent, counterexamples {MODE}; {count} uniform minimal targets per n over {{a,b}}")
    header = (
        f"{'n':>3} {'calls':>6} | {'bare ms':>8} {'episode':>8} {'text':>8} {'sandbox':>8} | "
        f"{'us/call ep':>10} {'sandbox':>8} | {'ep/bare':>7} {'text/ep':>7} {'sbx/ep':>7}"
    )
    print(header)
    print("-" * len(header))
    starts: list[float] = []
    for n in sizes:
        rows: dict[str, list[float]] = {k: [] for k in ("bare", "episode", "text", "sandbox")}
        per_call: dict[str, list[float]] = {"episode": [], "sandbox": []}
        calls: list[int] = []
        for i in range(count):
            target = sample_minimal_dfa(rng_for(SEED, "bench-episode", n, i), n)
            box = make_box(target, i)
            rows["bare"].append(timed(lambda t=target: learn("ttt", TargetOracle(t, MODE))))
            holder: list[DfaTrajectory] = []

            def episode(b: Box = box, t: DFA = target, out: list[DfaTrajectory] = holder) -> None:
                out.append(run_dfa_episode(b, "ttt", agent(), in_process_membership(t), suite="b"))

            rows["episode"].append(timed(episode))
            traj = holder[0]
            assert traj.success, traj.error
            calls.append(traj.queries_used)
            per_call["episode"].append(rows["episode"][-1] / traj.queries_used)
            replay = Replay(traj)
            rows["text"].append(
                timed(
                    lambda b=box, t=target, r=replay: run_dfa_episode(
                        b, "text", r, in_process_membership(t), suite="b"
                    )
                )
            )
            begin = time.perf_counter()
            with SandboxWorker(box.code) as worker:
                worker.call("")  # start the worker outside the timing
                starts.append(time.perf_counter() - begin)
                seconds = timed(
                    lambda b=box, w=worker: run_dfa_episode(b, "ttt", agent(), w.call, suite="b")
                )
            rows["sandbox"].append(seconds)
            per_call["sandbox"].append(seconds / traj.queries_used)
        med = {k: statistics.median(v) for k, v in rows.items()}
        ratio = {
            "ep/bare": statistics.median(
                e / b for e, b in zip(rows["episode"], rows["bare"], strict=True)
            ),
            "text/ep": statistics.median(
                t / e for t, e in zip(rows["text"], rows["episode"], strict=True)
            ),
            "sbx/ep": statistics.median(
                s / e for s, e in zip(rows["sandbox"], rows["episode"], strict=True)
            ),
        }
        print(
            f"{n:>3} {statistics.median(calls):>6.0f} | {med['bare'] * 1e3:>8.2f} "
            f"{med['episode'] * 1e3:>8.2f} {med['text'] * 1e3:>8.2f} "
            f"{med['sandbox'] * 1e3:>8.2f} | "
            f"{statistics.median(per_call['episode']) * 1e6:>10.0f} "
            f"{statistics.median(per_call['sandbox']) * 1e6:>8.0f} | "
            f"{ratio['ep/bare']:>7.2f} {ratio['text/ep']:>7.2f} {ratio['sbx/ep']:>7.2f}"
        )
    start_ms = statistics.median(starts) * 1e3
    print(f"sandbox worker start-up (first call included): median {start_ms:.1f} ms")


if __name__ == "__main__":
    main()
