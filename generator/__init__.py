"""Generation: the coder -> tester -> refiner graph, its backends, suite writing."""

from generator.backends import Backend, Judgement, ProceduralBackend, create_backend
from generator.suite import GenerateConfig, GenerateResult, generate_suite
from generator.tester import TestReport, test_candidate

__all__ = [
    "Backend",
    "GenerateConfig",
    "GenerateResult",
    "Judgement",
    "ProceduralBackend",
    "TestReport",
    "create_backend",
    "generate_suite",
    "test_candidate",
]
