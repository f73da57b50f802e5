"""Play one episode of a box as a gymnasium env with a trivial random policy.

    python examples/gym_random_policy.py SUITE [--box ID_OR_INDEX] [--spec 10@1] [--seed N]

SUITE is a suite folder written by ``oracle-gen`` (this script generates nothing). The
policy types a random line from a few that mean something in some kind ("?" is a
membership query of the empty word for DFA, "0"/"1" a bit or an arm, "rock" a move);
every other line is an invalid move, recorded as such. The reward is 0 until the episode
ends, then its score. Needs the ``gym`` extra (gymnasium).
"""

from __future__ import annotations

import argparse
import sys

from evaluator.integrations.gym import make_env
from oracle_bench.errors import OracleBenchError

LINES = ("?", "0", "1", "a", "rock", "01", "? a")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("suite", help="a suite folder")
    parser.add_argument("--box", help="a box id or index (default: drawn from the seed)")
    parser.add_argument("--spec", help="TURNS@SHOTS, for turn@shot and puzzle suites")
    parser.add_argument("--seed", type=int, default=0, help="the reset seed (default 0)")
    parser.add_argument("--max-steps", type=int, default=10_000, help="give up after these")
    args = parser.parse_args(argv)
    box: str | int | None = int(args.box) if args.box and args.box.isdigit() else args.box
    try:
        env = make_env(args.suite, box=box, spec=args.spec)
    except OracleBenchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        observation, info = env.reset(seed=args.seed)
        print(observation)
        reward, steps, over = 0.0, 0, False
        while not over and steps < args.max_steps:
            action = LINES[int(env.np_random.integers(len(LINES)))]
            observation, step_reward, terminated, truncated, info = env.step(action)
            reward, steps, over = float(step_reward), steps + 1, terminated or truncated
        print(observation)
    finally:
        env.close()
    print(f"box {info['box']} repetition {info['repetition']}: {steps} steps, reward {reward:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
