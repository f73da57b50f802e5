"""The pricing table: defaults, glob patterns, user files, exact costs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from oracle_bench.errors import ProviderConfigError
from providers import ModelPrice, PricingTable, Usage, load_pricing
from providers.pricing import PRICING_ENV

USAGE = Usage(input=1_000_000, output=500_000, cache_read=200_000, cache_write=100_000)


@pytest.fixture(autouse=True)
def _no_user_pricing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PRICING_ENV, raising=False)


def _write(path: Path, models: dict[str, dict[str, float]]) -> Path:
    path.write_text(json.dumps({"version": 1, "models": models}))
    return path


def test_default_table_prices_known_models_and_zero_for_scripted() -> None:
    table = load_pricing()
    # 1M * 2.0 + 0.5M * 8.0 + 0.2M * 0.5 = 6.1
    assert table.price("openai/gpt-4.1", USAGE) == pytest.approx(6.1)
    # 1M * 3 + 0.5M * 15 + 0.2M * 0.3 + 0.1M * 3.75 = 10.935
    assert table.price("anthropic/claude-sonnet-4-5", USAGE) == pytest.approx(10.935)
    assert table.price("scripted/demo/replies.jsonl", USAGE) == 0.0
    assert table.price("openai/loopback-coder", USAGE) == 0.0
    assert table.price("anthropic/loopback", USAGE) == 0.0
    assert table.price("openai/no-such-model", USAGE) is None
    assert "scripted/*" in table.models()


def test_exact_key_beats_pattern_and_longer_pattern_beats_shorter() -> None:
    table = PricingTable(
        {
            "p/*": ModelPrice(input=1, output=1),
            "p/big*": ModelPrice(input=2, output=2),
            "p/big-mini": ModelPrice(input=3, output=3),
        }
    )
    one = Usage(input=1_000_000)
    assert table.price("p/small", one) == 1.0
    assert table.price("p/big-x", one) == 2.0
    assert table.price("p/big-mini", one) == 3.0
    assert table.price("q/big", one) is None


def test_reasoning_is_priced_as_part_of_output() -> None:
    table = PricingTable({"p/m": ModelPrice(input=0, output=10)})
    assert table.price("p/m", Usage(output=1000, reasoning=900)) == pytest.approx(0.01)


def test_user_file_overrides_and_extends(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    user = _write(
        tmp_path / "prices.json",
        {
            "openai/gpt-4.1": {"input": 1.0, "output": 1.0},
            "local/*": {"input": 0.5, "output": 0.5, "cache_read": 0, "cache_write": 0},
        },
    )
    table = load_pricing(user)
    assert table.price("openai/gpt-4.1", Usage(input=2_000_000)) == 2.0
    assert table.price("local/llama", Usage(output=2_000_000)) == 1.0
    assert table.price("openai/gpt-4o", Usage(input=1_000_000)) == 2.5  # default still there
    monkeypatch.setenv(PRICING_ENV, str(user))
    assert load_pricing().price("local/x", Usage(input=1_000_000)) == 0.5


def test_user_pattern_wins_over_default_exact(tmp_path: Path) -> None:
    table = load_pricing(_write(tmp_path / "p.json", {"*": {"input": 0, "output": 0}}))
    assert table.price("openai/gpt-4.1", USAGE) == 0.0


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", r"is not JSON \(line 1: "),
        ('{"models": {"a/b": {"input": -1, "output": 0}}}', r": models\.a/b\.input: "),
        ('{"models": {}, "extra": 1}', r": extra: Extra inputs are not permitted$"),
    ],
)
def test_bad_user_file_is_a_one_line_config_error(
    tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(ProviderConfigError, match=message) as info:
        load_pricing(path)
    assert str(path) in str(info.value)
    assert "\n" not in str(info.value)


def test_missing_user_file_names_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(PRICING_ENV, str(tmp_path / "nope.json"))
    with pytest.raises(ProviderConfigError, match=r"pricing file .*nope\.json does not exist"):
        load_pricing()
