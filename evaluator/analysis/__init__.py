"""Analyses of runs, whatever their kind: information, tiers, figures, comparisons.

Every kind turns its trajectories into :class:`EpisodeAnalysis` values
(``EpisodeKind.analyse``); everything here reads those only.
"""

from __future__ import annotations

from evaluator.analysis._conversation import conversation_of
from evaluator.analysis._model import (
    AnswerView,
    ConversationMessage,
    EpisodeAnalysis,
    Figure,
    Series,
    StepView,
)

__all__ = [
    "AnswerView",
    "ConversationMessage",
    "EpisodeAnalysis",
    "Figure",
    "Series",
    "StepView",
    "conversation_of",
]
