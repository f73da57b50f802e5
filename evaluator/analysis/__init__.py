"""Analyses of runs, whatever their kind: information, tiers, figures, comparisons.

Every kind turns its trajectories into :class:`EpisodeAnalysis` values
(``EpisodeKind.analyse``); everything here reads those only. The HTML report
(:mod:`evaluator.analysis.html_report`) is made of sections registered with
:func:`register_section` (:mod:`evaluator.analysis.sections`).
"""

from __future__ import annotations

from evaluator.analysis._conversation import conversation_of, record_identity
from evaluator.analysis._model import (
    AnswerView,
    ConversationMessage,
    EpisodeAnalysis,
    Figure,
    Series,
    StepView,
)
from evaluator.analysis.sections import (
    AnalysedRun,
    Column,
    ReportProgress,
    ReportTable,
    RunSet,
    Section,
    SectionContent,
    analyse_runs,
    register_section,
    registered_sections,
)

__all__ = [
    "AnalysedRun",
    "AnswerView",
    "Column",
    "ConversationMessage",
    "EpisodeAnalysis",
    "Figure",
    "ReportProgress",
    "ReportTable",
    "RunSet",
    "Section",
    "SectionContent",
    "Series",
    "StepView",
    "analyse_runs",
    "conversation_of",
    "record_identity",
    "register_section",
    "registered_sections",
]
