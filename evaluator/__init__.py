"""The evaluator: the turn@shot episode protocol, agents, metrics, the resumable runner."""

from evaluator.agents import (
    Agent,
    AgentContext,
    AgentFactory,
    Briefing,
    Observation,
    Question,
    agent_names,
    check_agent_name,
    make_agent,
    register_agent,
)
from evaluator.baselines import AdaptiveAgent, FixedAgent, RandomAgent
from evaluator.metrics import (
    EpisodeInformation,
    QueryInformation,
    check_information_bounds,
    efficiency,
    episode_information,
)
from evaluator.protocol import BoxEnvironment, EpisodeContext, run_episode, turn_banner
from evaluator.runner import (
    EpisodeJob,
    ProgressEvent,
    RunManifest,
    RunResult,
    evaluate_suite,
    trajectory_path,
)
from evaluator.spec import FeedbackMode, TurnShot, parse_feedback, parse_spec
from evaluator.summary import BoxRow, GroupRow, Summary, summarise, write_summary
from evaluator.trajectory import (
    AttemptRecord,
    CorruptTrajectoryError,
    ItemRecord,
    Trajectory,
    TurnRecord,
    load_trajectory,
    save_trajectory,
)

__all__ = [
    "AdaptiveAgent",
    "Agent",
    "AgentContext",
    "AgentFactory",
    "AttemptRecord",
    "BoxEnvironment",
    "BoxRow",
    "Briefing",
    "CorruptTrajectoryError",
    "EpisodeContext",
    "EpisodeInformation",
    "EpisodeJob",
    "FeedbackMode",
    "FixedAgent",
    "GroupRow",
    "ItemRecord",
    "Observation",
    "ProgressEvent",
    "QueryInformation",
    "Question",
    "RandomAgent",
    "RunManifest",
    "RunResult",
    "Summary",
    "Trajectory",
    "TurnRecord",
    "TurnShot",
    "agent_names",
    "check_agent_name",
    "check_information_bounds",
    "efficiency",
    "episode_information",
    "evaluate_suite",
    "load_trajectory",
    "make_agent",
    "parse_feedback",
    "parse_spec",
    "register_agent",
    "run_episode",
    "save_trajectory",
    "summarise",
    "trajectory_path",
    "turn_banner",
    "write_summary",
]
