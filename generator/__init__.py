"""Generation: the coder -> tester -> refiner graph, its backends, suite writing."""

from generator.backends import Backend, Judgement, ProceduralBackend, create_backend
from generator.suite import GenerateConfig, GenerateResult, generate_suite
from generator.tester import CandidateReport, check_candidate

__all__ = [
    "Backend",
    "CandidateReport",
    "GenerateConfig",
    "GenerateResult",
    "Judgement",
    "ProceduralBackend",
    "check_candidate",
    "create_backend",
    "generate_suite",
]
