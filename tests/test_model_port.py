"""The model port's one provider against a real chat-completions server on 127.0.0.1:
configuration, billed tokens, retries with backoff on 429/5xx, permanent refusals,
timeouts and malformed bodies. No network; the HTTP layer is real."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from memory_es.model import (
    ENV_BASE_URL,
    ENV_MODEL,
    ENV_PRICE_INPUT,
    ENV_PRICE_OUTPUT,
    ChatMessage,
    ContextOverflow,
    MalformedCompletion,
    ModelNotConfigured,
    ModelRejected,
    ModelSettings,
    ModelUnavailable,
    model_from_env,
)
from tests.chat_server import Reply, ScriptedChatServer, chat_server

HELLO = [ChatMessage("system", "Be brief."), ChatMessage("user", "Where do I live?")]


def _model(server: ScriptedChatServer, **env: str) -> Any:
    return model_from_env({**server.env(price_input=3.0, price_output=15.0), **env})


def test_unconfigured_model_is_a_clear_usage_error() -> None:
    with pytest.raises(ModelNotConfigured) as missing:
        ModelSettings.from_env({})
    message = str(missing.value)
    for name in (ENV_BASE_URL, ENV_MODEL, ENV_PRICE_INPUT, ENV_PRICE_OUTPUT):
        assert name in message
    assert missing.value.exit_code == 2
    base = {ENV_BASE_URL: "http://x/v1", ENV_MODEL: "m", ENV_PRICE_INPUT: "1"}
    with pytest.raises(ModelNotConfigured, match="must be a number"):
        ModelSettings.from_env({**base, ENV_PRICE_OUTPUT: "cheap"})
    with pytest.raises(ModelNotConfigured, match="must not be negative"):
        ModelSettings.from_env({**base, ENV_PRICE_OUTPUT: "-1"})
    with pytest.raises(ModelNotConfigured, match="http"):
        ModelSettings.from_env({**base, ENV_PRICE_OUTPUT: "1", ENV_BASE_URL: "ftp://x"})


def test_completion_reads_billed_tokens_and_prices_them() -> None:
    def script(body: dict[str, Any], n: int) -> Reply:
        return Reply(content="Portland", prompt_tokens=1200, completion_tokens=30, model="m-2")

    with chat_server(script) as server:
        completion = _model(server).complete(HELLO, max_tokens=32)
        body, headers = server.requests[0], server.headers[0]
    assert completion.text == "Portland"
    assert (completion.input_tokens, completion.output_tokens) == (1200, 30)
    assert completion.cost_usd == pytest.approx((1200 * 3.0 + 30 * 15.0) / 1_000_000)
    assert completion.model == "m-2" and completion.finish_reason == "stop"
    assert body["model"] == "scripted-model" and body["max_tokens"] == 32
    assert body["messages"][1] == {"role": "user", "content": "Where do I live?"}
    assert headers["Authorization"] == "Bearer test-key"


def test_retries_with_backoff_on_429_and_5xx() -> None:
    def script(body: dict[str, Any], n: int) -> Reply:
        if n == 0:
            return Reply(status=429, headers={"Retry-After": "0"})
        if n == 1:
            return Reply(status=503, headers={"Retry-After": "0"})
        return Reply(content="ok")

    with chat_server(script) as server:
        completion = _model(server, MEMORY_ES_MODEL_RETRIES="2").complete(HELLO, max_tokens=8)
        assert completion.text == "ok" and len(server.requests) == 3


def test_transient_failure_after_the_retries_is_unavailable() -> None:
    def script(body: dict[str, Any], n: int) -> Reply:
        return Reply(status=500, headers={"Retry-After": "0"})

    with chat_server(script) as server:
        with pytest.raises(ModelUnavailable, match="HTTP 500 after 2 attempt"):
            _model(server, MEMORY_ES_MODEL_RETRIES="1").complete(HELLO, max_tokens=8)
        assert len(server.requests) == 2


def test_a_permanent_refusal_is_not_retried() -> None:
    def script(body: dict[str, Any], n: int) -> Reply:
        if body["messages"][-1]["content"] == "long":
            return Reply(status=400, error={"code": "context_length_exceeded", "message": "x"})
        return Reply(status=401, error={"message": "bad key"})

    with chat_server(script) as server:
        model = _model(server, MEMORY_ES_MODEL_RETRIES="3")
        with pytest.raises(ModelRejected, match="HTTP 401") as refused:
            model.complete(HELLO, max_tokens=8)
        assert not isinstance(refused.value, ContextOverflow)
        with pytest.raises(ContextOverflow):
            model.complete([ChatMessage("user", "long")], max_tokens=8)
        assert len(server.requests) == 2


def test_a_timeout_is_retried_then_unavailable() -> None:
    def script(body: dict[str, Any], n: int) -> Reply:
        return Reply(content="late", delay_seconds=0.6)

    with chat_server(script) as server:
        model = _model(server, MEMORY_ES_MODEL_TIMEOUT_SECONDS="0.2", MEMORY_ES_MODEL_RETRIES="1")
        with pytest.raises(ModelUnavailable, match="unreachable after 2 attempt"):
            model.complete(HELLO, max_tokens=8)


def test_a_malformed_body_is_malformed_and_billed() -> None:
    def script(body: dict[str, Any], n: int) -> Reply:
        return Reply(raw=b'{"choices": []}')

    with chat_server(script) as server, pytest.raises(MalformedCompletion) as malformed:
        _model(server).complete(HELLO, max_tokens=8)
    assert malformed.value.billed is True


def test_the_model_port_is_not_imported_by_help() -> None:
    """`memory-es --help` (and so every hot path) loads neither the provider nor httpx."""
    code = (
        "import sys\n"
        "from memory_es.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "bad = [m for m in ('httpx', 'memory_es.model.openai_compat', 'benchmarks')"
        " if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, timeout=60)
