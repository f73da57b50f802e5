"""The preflight's reachability probe: an unreachable API fails in seconds, before any call.

No test reaches the internet: the vendor's API is monkeypatched to an unresolvable host
under the reserved ``.invalid`` TLD (RFC 2606) or to a loopback port.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest

from oracle_bench.errors import ProviderConfigError
from providers import _base as base
from providers import check_provider
from providers._anthropic import AnthropicBackend
from providers._openai import OpenAIBackend

FORMATS = {"openai": OpenAIBackend, "anthropic": AnthropicBackend}
ENV = [
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "OPENAI_BASE_URL",
    "ANTHROPIC_BASE_URL",
    "HTTPS_PROXY",
    "https_proxy",
    "HTTP_PROXY",
    "http_proxy",
    "ALL_PROXY",
    "all_proxy",
    "NO_PROXY",
    "no_proxy",
]


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ENV:
        monkeypatch.delenv(name, raising=False)


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def listening() -> Iterator[int]:
    """A loopback port that accepts TCP connections (and nothing more)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)
        yield int(sock.getsockname()[1])


def _check(spec: str, **kw: object) -> tuple[str, float]:
    start = time.monotonic()
    with pytest.raises(ProviderConfigError) as info:
        check_provider(spec, **kw)  # type: ignore[arg-type]
    return str(info.value), time.monotonic() - start


@pytest.mark.parametrize("fmt", FORMATS)
def test_key_set_and_vendor_api_unresolvable_fails_fast(
    fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(f"{fmt.upper()}_API_KEY", "sk-test")
    monkeypatch.setattr(FORMATS[fmt], "vendor_host", "api.invalid")
    message, elapsed = _check(f"{fmt}/m")
    env = f"{fmt.upper()}_BASE_URL"
    assert message == (
        "cannot reach https://api.invalid: unknown host; check the network (or HTTPS_PROXY), "
        f"or set --base-url/{env} to a server that is reachable"
    )
    assert elapsed < 10  # generous: the probe's own bound is the 3 s connect timeout


@pytest.mark.parametrize("fmt", FORMATS)
def test_key_set_and_vendor_api_on_a_closed_port(fmt: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(f"{fmt.upper()}_API_KEY", "sk-test")
    port = closed_port()
    monkeypatch.setattr(FORMATS[fmt], "vendor_host", f"127.0.0.1:{port}")
    message, _ = _check(f"{fmt}/m")
    assert message.startswith(f"cannot reach https://127.0.0.1:{port}: connection refused; ")


@pytest.mark.parametrize("fmt", FORMATS)
def test_key_set_and_vendor_api_reachable_passes(
    fmt: str, monkeypatch: pytest.MonkeyPatch, listening: int
) -> None:
    monkeypatch.setenv(f"{fmt.upper()}_API_KEY", "sk-test")
    monkeypatch.setattr(FORMATS[fmt], "vendor_host", f"127.0.0.1:{listening}")
    check_provider(f"{fmt}/m")


@pytest.mark.parametrize("fmt", FORMATS)
def test_base_url_with_an_unresolvable_host(fmt: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for key_set in (False, True):
        if key_set:
            monkeypatch.setenv(f"{fmt.upper()}_API_KEY", "sk-test")
        message, elapsed = _check(f"{fmt}/m", base_url="https://api.invalid/v1")
        assert message == (
            "cannot reach https://api.invalid/v1: unknown host; is the server running? "
            f"set --base-url/{fmt.upper()}_BASE_URL"
        )
        assert elapsed < 10


@pytest.mark.parametrize("fmt", FORMATS)
def test_base_url_on_a_closed_loopback_port_with_a_key(
    fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(f"{fmt.upper()}_API_KEY", "sk-test")
    url = f"http://127.0.0.1:{closed_port()}/v1"
    message, _ = _check(f"{fmt}/m", base_url=url)
    assert message.startswith(f"cannot reach {url}: connection refused; ")


def test_a_proxy_from_the_environment_is_what_gets_probed(
    monkeypatch: pytest.MonkeyPatch, listening: int
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setattr(OpenAIBackend, "vendor_host", "api.invalid")
    # The SDK's client would go through the proxy, which resolves the host itself.
    monkeypatch.setenv("HTTPS_PROXY", f"http://127.0.0.1:{listening}")
    check_provider("openai/m")
    dead = closed_port()
    monkeypatch.setenv("HTTPS_PROXY", f"http://127.0.0.1:{dead}")
    message, _ = _check("openai/m")
    assert message.startswith(
        f"cannot reach https://api.invalid through the proxy 127.0.0.1:{dead}: connection refused"
    )
    # NO_PROXY covers the host: the host itself is probed again.
    monkeypatch.setenv("NO_PROXY", "api.invalid")
    message, _ = _check("openai/m")
    assert message.startswith("cannot reach https://api.invalid: unknown host")


def test_a_hanging_resolver_is_cut_off_at_the_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    release = threading.Event()

    def hang(*args: object, **kwargs: object) -> list[object]:
        release.wait(30)
        raise socket.gaierror(socket.EAI_NONAME, "released")

    monkeypatch.setattr(base.socket, "getaddrinfo", hang)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    try:
        message, elapsed = _check("openai/m", connect_timeout=0.2)
    finally:
        release.set()
    assert message.startswith("cannot reach https://api.openai.com: name resolution timed out; ")
    assert elapsed < 5
