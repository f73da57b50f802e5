"""Automata machinery: DFAs on plain arrays, the oracle, sampling, learners, metrics."""
