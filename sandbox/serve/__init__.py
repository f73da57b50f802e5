"""The box HTTP server's transport: a hardened JSON service (limits, token, routes).

What it serves is the evaluator's business (``evaluator.serve``): this layer knows
nothing of boxes or episodes.
"""

from __future__ import annotations

from sandbox.serve._http import HttpError, JsonService, Request, Route, ServiceLimits

__all__ = ["HttpError", "JsonService", "Request", "Route", "ServiceLimits"]
