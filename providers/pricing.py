"""Prices per model, user-editable, to turn normalised usage into US dollars.

The default table ships as ``providers/pricing.json``. A user file with the same format
(named by ``ORACLE_BENCH_PRICING`` or passed explicitly) overrides and extends it: its
entries are looked up first. Keys are ``provider/model`` and may be glob patterns
(``anthropic/claude-sonnet-4*``, ``scripted/*``); within one file an exact key wins, then
the pattern with the most literal characters.
"""

from __future__ import annotations

import fnmatch
import json
import logging
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from oracle_bench.errors import ProviderConfigError
from providers.types import Usage

__all__ = [
    "PRICING_ENV",
    "ModelPrice",
    "PricingFile",
    "PricingTable",
    "load_pricing",
]

log = logging.getLogger(__name__)

PRICING_ENV = "ORACLE_BENCH_PRICING"
"""Environment variable naming a user pricing file (overrides and extends the default)."""

_WILDCARDS = frozenset("*?[")


class ModelPrice(BaseModel):
    """USD per million tokens of each kind."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    input: float = Field(ge=0)
    output: float = Field(ge=0)
    cache_read: float = Field(default=0.0, ge=0)
    cache_write: float = Field(default=0.0, ge=0)

    def cost(self, usage: Usage) -> float:
        """The price of ``usage`` in USD. Reasoning tokens are part of ``output``."""
        micro = (
            usage.input * self.input
            + usage.output * self.output
            + usage.cache_read * self.cache_read
            + usage.cache_write * self.cache_write
        )
        return micro / 1_000_000


class PricingFile(BaseModel):
    """The on-disk format of a pricing table."""

    model_config = ConfigDict(extra="forbid")

    version: int = 1
    unit: str = "USD per million tokens"
    note: str = ""
    models: dict[str, ModelPrice]


def _specificity(pattern: str) -> int:
    return sum(1 for ch in pattern if ch not in _WILDCARDS)


@dataclass(frozen=True)
class _Layer:
    exact: Mapping[str, ModelPrice]
    patterns: tuple[tuple[str, ModelPrice], ...]
    """Most specific first."""

    @classmethod
    def of(cls, models: Mapping[str, ModelPrice]) -> _Layer:
        exact = {k: v for k, v in models.items() if not _WILDCARDS & set(k)}
        patterns = sorted(
            ((k, v) for k, v in models.items() if _WILDCARDS & set(k)),
            key=lambda kv: (-_specificity(kv[0]), kv[0]),
        )
        return cls(exact, tuple(patterns))

    def find(self, model: str) -> ModelPrice | None:
        if model in self.exact:
            return self.exact[model]
        for pattern, price in self.patterns:
            if fnmatch.fnmatchcase(model, pattern):
                return price
        return None


class PricingTable:
    """Layers of prices; later layers (user files) are searched first."""

    def __init__(self, models: Mapping[str, ModelPrice] | None = None) -> None:
        self._layers: tuple[_Layer, ...] = (_Layer.of(models or {}),)

    def extended(self, models: Mapping[str, ModelPrice]) -> PricingTable:
        """A new table whose ``models`` take precedence over this one's."""
        table = PricingTable()
        table._layers = (_Layer.of(models), *self._layers)
        return table

    def lookup(self, model: str) -> ModelPrice | None:
        """The price of ``provider/model``, or None when no entry matches."""
        for layer in self._layers:
            found = layer.find(model)
            if found is not None:
                return found
        return None

    def price(self, model: str, usage: Usage) -> float | None:
        """USD for ``usage`` on ``model`` (``provider/model``); None when the model is unknown."""
        found = self.lookup(model)
        return None if found is None else found.cost(usage)

    def models(self) -> Sequence[str]:
        """Every key in every layer, sorted (for listings)."""
        keys: set[str] = set()
        for layer in self._layers:
            keys.update(layer.exact)
            keys.update(p for p, _ in layer.patterns)
        return sorted(keys)


def _read(path: Path) -> PricingFile:
    try:
        return PricingFile.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except FileNotFoundError:
        raise ProviderConfigError(f"pricing file {path} does not exist") from None
    except (OSError, UnicodeDecodeError) as err:
        raise ProviderConfigError(f"cannot read pricing file {path}: {err}") from None
    except json.JSONDecodeError as err:
        raise ProviderConfigError(
            f"pricing file {path} is not JSON (line {err.lineno}: {err.msg})"
        ) from None
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ProviderConfigError(f"pricing file {path}: {where}: {first['msg']}") from None


def _default_file() -> PricingFile:
    text = resources.files("providers").joinpath("pricing.json").read_text(encoding="utf-8")
    return PricingFile.model_validate_json(text)


def load_pricing(path: str | os.PathLike[str] | None = None) -> PricingTable:
    """The default table, extended by ``path`` or else by ``$ORACLE_BENCH_PRICING`` if set.

    A missing or invalid user file raises ``ProviderConfigError`` naming it.
    """
    table = PricingTable(_default_file().models)
    user = path if path is not None else (os.environ.get(PRICING_ENV) or None)
    if user is None:
        return table
    extra = _read(Path(user))
    log.debug("pricing: %d entries from %s", len(extra.models), user)
    return table.extended(extra.models)
