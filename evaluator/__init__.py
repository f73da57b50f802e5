"""The evaluator: episode kinds as plug-ins (turn@shot, DFA), agents, metrics, the resumable
runner, reports."""

from __future__ import annotations

from typing import TYPE_CHECKING

from oracle_bench._lazy import lazy_exports

if TYPE_CHECKING:
    from evaluator.api import ReportResult, RunPlan, evaluate, plan_run, report_results
    from evaluator.box_env import BoxEnvironment
    from evaluator.dataset import BoxDataset, BoxItem, EpisodeStep, TextEpisode, TextEpisodeError
    from evaluator.kinds import EpisodeKind, get_kind, kind_names, register_kind
    from evaluator.kinds.dfa.protocol import (
        DfaAgent,
        DfaAgentContext,
        DfaEnvironment,
        EpisodeOver,
        InvalidCallError,
        check_dfa_agent_name,
        dfa_agent_names,
        failed_dfa_trajectory,
        make_dfa_agent,
        register_dfa_agent,
        run_dfa_episode,
    )
    from evaluator.kinds.dfa.summary import (
        DfaBoxRow,
        DfaGroupRow,
        DfaSummary,
        parse_buckets,
        summarise_dfa,
        write_dfa_summary,
    )
    from evaluator.kinds.dfa.trajectory import DfaCall, DfaTrajectory, load_dfa_trajectory
    from evaluator.kinds.turns.agents import (
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
    from evaluator.kinds.turns.baselines import AdaptiveAgent, FixedAgent, RandomAgent
    from evaluator.kinds.turns.metrics import (
        EpisodeInformation,
        QueryInformation,
        check_information_bounds,
        efficiency,
        episode_information,
    )
    from evaluator.kinds.turns.protocol import EpisodeContext, run_episode, turn_banner
    from evaluator.kinds.turns.summary import BoxRow, GroupRow, Summary, summarise, write_summary
    from evaluator.kinds.turns.trajectory import (
        AttemptRecord,
        ItemRecord,
        Trajectory,
        TurnRecord,
        load_trajectory,
        save_trajectory,
    )
    from evaluator.records import CorruptTrajectoryError
    from evaluator.runner import (
        EpisodeJob,
        ProgressEvent,
        RunManifest,
        RunResult,
        evaluate_suite,
        trajectory_path,
    )
    from evaluator.spec import FeedbackMode, TurnShot, parse_feedback, parse_spec
else:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "evaluator.api": ("ReportResult", "RunPlan", "evaluate", "plan_run", "report_results"),
            "evaluator.box_env": ("BoxEnvironment",),
            "evaluator.dataset": (
                "BoxDataset",
                "BoxItem",
                "EpisodeStep",
                "TextEpisode",
                "TextEpisodeError",
            ),
            "evaluator.kinds": (
                "EpisodeKind",
                "get_kind",
                "kind_names",
                "register_kind",
            ),
            "evaluator.kinds.dfa.protocol": (
                "DfaAgent",
                "DfaAgentContext",
                "DfaEnvironment",
                "EpisodeOver",
                "InvalidCallError",
                "check_dfa_agent_name",
                "dfa_agent_names",
                "failed_dfa_trajectory",
                "make_dfa_agent",
                "register_dfa_agent",
                "run_dfa_episode",
            ),
            "evaluator.kinds.dfa.summary": (
                "DfaBoxRow",
                "DfaGroupRow",
                "DfaSummary",
                "parse_buckets",
                "summarise_dfa",
                "write_dfa_summary",
            ),
            "evaluator.kinds.dfa.trajectory": (
                "DfaCall",
                "DfaTrajectory",
                "load_dfa_trajectory",
            ),
            "evaluator.kinds.turns.agents": (
                "Agent",
                "AgentContext",
                "AgentFactory",
                "Briefing",
                "Observation",
                "Question",
                "agent_names",
                "check_agent_name",
                "make_agent",
                "register_agent",
            ),
            "evaluator.kinds.turns.baselines": (
                "AdaptiveAgent",
                "FixedAgent",
                "RandomAgent",
            ),
            "evaluator.kinds.turns.metrics": (
                "EpisodeInformation",
                "QueryInformation",
                "check_information_bounds",
                "efficiency",
                "episode_information",
            ),
            "evaluator.kinds.turns.protocol": (
                "EpisodeContext",
                "run_episode",
                "turn_banner",
            ),
            "evaluator.kinds.turns.summary": (
                "BoxRow",
                "GroupRow",
                "Summary",
                "summarise",
                "write_summary",
            ),
            "evaluator.kinds.turns.trajectory": (
                "AttemptRecord",
                "ItemRecord",
                "Trajectory",
                "TurnRecord",
                "load_trajectory",
                "save_trajectory",
            ),
            "evaluator.records": ("CorruptTrajectoryError",),
            "evaluator.runner": (
                "EpisodeJob",
                "ProgressEvent",
                "RunManifest",
                "RunResult",
                "evaluate_suite",
                "trajectory_path",
            ),
            "evaluator.spec": (
                "FeedbackMode",
                "TurnShot",
                "parse_feedback",
                "parse_spec",
            ),
        },
    )

__all__ = [
    "AdaptiveAgent",
    "Agent",
    "AgentContext",
    "AgentFactory",
    "AttemptRecord",
    "BoxDataset",
    "BoxEnvironment",
    "BoxItem",
    "BoxRow",
    "Briefing",
    "CorruptTrajectoryError",
    "DfaAgent",
    "DfaAgentContext",
    "DfaBoxRow",
    "DfaCall",
    "DfaEnvironment",
    "DfaGroupRow",
    "DfaSummary",
    "DfaTrajectory",
    "EpisodeContext",
    "EpisodeInformation",
    "EpisodeJob",
    "EpisodeKind",
    "EpisodeOver",
    "EpisodeStep",
    "FeedbackMode",
    "FixedAgent",
    "GroupRow",
    "InvalidCallError",
    "ItemRecord",
    "Observation",
    "ProgressEvent",
    "QueryInformation",
    "Question",
    "RandomAgent",
    "ReportResult",
    "RunManifest",
    "RunPlan",
    "RunResult",
    "Summary",
    "TextEpisode",
    "TextEpisodeError",
    "Trajectory",
    "TurnRecord",
    "TurnShot",
    "agent_names",
    "check_agent_name",
    "check_dfa_agent_name",
    "check_information_bounds",
    "dfa_agent_names",
    "efficiency",
    "episode_information",
    "evaluate",
    "evaluate_suite",
    "failed_dfa_trajectory",
    "get_kind",
    "kind_names",
    "load_dfa_trajectory",
    "load_trajectory",
    "make_agent",
    "make_dfa_agent",
    "parse_buckets",
    "parse_feedback",
    "parse_spec",
    "plan_run",
    "register_agent",
    "register_dfa_agent",
    "register_kind",
    "report_results",
    "run_dfa_episode",
    "run_episode",
    "save_trajectory",
    "summarise",
    "summarise_dfa",
    "trajectory_path",
    "turn_banner",
    "write_dfa_summary",
    "write_summary",
]
