"""Generation: the coder -> tester -> refiner graph, its backends, suite writing."""

from __future__ import annotations

from typing import TYPE_CHECKING

from oracle_bench._lazy import lazy_exports

if TYPE_CHECKING:
    from generator.api import generate, generation_config
    from generator.backends import (
        Backend,
        Design,
        Draft,
        Judgement,
        PlayLog,
        PlayTurn,
        ProceduralBackend,
        create_backend,
    )
    from generator.llm_backend import LlmBackend, create_llm_backend
    from generator.suite import (
        GenerateConfig,
        GenerateResult,
        SuiteExistsError,
        SuiteFolder,
        generate_suite,
        inspect_suite,
    )
    from generator.tester import CandidateReport, check_candidate
else:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "generator.api": ("generate", "generation_config"),
            "generator.backends": (
                "Backend",
                "Design",
                "Draft",
                "Judgement",
                "PlayLog",
                "PlayTurn",
                "ProceduralBackend",
                "create_backend",
            ),
            "generator.llm_backend": ("LlmBackend", "create_llm_backend"),
            "generator.suite": (
                "GenerateConfig",
                "GenerateResult",
                "SuiteExistsError",
                "SuiteFolder",
                "generate_suite",
                "inspect_suite",
            ),
            "generator.tester": ("CandidateReport", "check_candidate"),
        },
    )

__all__ = [
    "Backend",
    "CandidateReport",
    "Design",
    "Draft",
    "GenerateConfig",
    "GenerateResult",
    "Judgement",
    "LlmBackend",
    "PlayLog",
    "PlayTurn",
    "ProceduralBackend",
    "SuiteExistsError",
    "SuiteFolder",
    "check_candidate",
    "create_backend",
    "create_llm_backend",
    "generate",
    "generate_suite",
    "generation_config",
    "inspect_suite",
]
