"""The one provider: an OpenAI-compatible ``/chat/completions`` endpoint over httpx.

Hosted APIs and local servers (llama.cpp's ``llama-server``, vLLM, Ollama's ``/v1``)
speak the same protocol, so one client serves them all. A request is retried with
exponential backoff (honouring ``Retry-After``) on a timeout, a connection failure, 408,
409, 429 and any 5xx, ``retries`` times; any other 4xx is permanent and not retried. The
billed tokens are the response's ``usage`` (``prompt_tokens``, ``completion_tokens``);
a server that reports none bills zero, which the live arm's pricing guard refuses.
This HTTP retry is the transport's own (timeouts, rate limits, ``Retry-After``); it is
not the unit-of-work conflict retry (``services/unit_of_work.run_retrying``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

import httpx

from memory_es.model import (
    ChatMessage,
    Completion,
    ContextOverflow,
    MalformedCompletion,
    ModelRejected,
    ModelSettings,
    ModelUnavailable,
    cost_usd,
)

RETRYABLE_STATUS = frozenset({408, 409, 429})
BACKOFF_BASE_SECONDS = 0.5
BACKOFF_MAX_SECONDS = 20.0
_OVERFLOW_HINTS = ("context_length_exceeded", "context length", "maximum context", "too long")


class OpenAICompatibleModel:
    def __init__(self, settings: ModelSettings, *, client: httpx.Client | None = None) -> None:
        self.settings = settings
        headers = {"Content-Type": "application/json"}
        if settings.api_key:
            headers["Authorization"] = f"Bearer {settings.api_key}"
        self._client = client or httpx.Client(
            base_url=settings.base_url, headers=headers, timeout=settings.timeout_seconds
        )

    @property
    def provider(self) -> str:
        return f"openai-compatible@{urlsplit(self.settings.base_url).netloc}"

    @property
    def model(self) -> str:
        return self.settings.model

    @property
    def price_input(self) -> float:
        return self.settings.price_input

    @property
    def price_output(self) -> float:
        return self.settings.price_output

    def close(self) -> None:
        self._client.close()

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int,
        temperature: float = 0.0,
        json_object: bool = False,
    ) -> Completion:
        body: dict[str, Any] = {
            "model": self.settings.model,
            "messages": [{"role": m.role, "content": m.content} for m in messages],
            "max_tokens": max_tokens,
            "temperature": temperature,
        }
        if json_object:
            body["response_format"] = {"type": "json_object"}
        started = time.perf_counter()
        response = self._post(body)
        return self._completion(response, time.perf_counter() - started)

    # -- the one retry loop ---------------------------------------------------------------

    def _post(self, body: dict[str, Any]) -> httpx.Response:
        attempts = self.settings.retries + 1
        for attempt in range(attempts):
            last = attempt == attempts - 1
            try:
                response = self._client.post("/chat/completions", json=body)
            except httpx.TransportError as error:  # timeouts, refused connections, resets
                if last:
                    raise ModelUnavailable(
                        f"model endpoint unreachable after {attempts} attempt(s):"
                        f" {type(error).__name__}"
                    ) from None
                time.sleep(_backoff(attempt, None))
                continue
            status = response.status_code
            if status < 400:
                return response
            if status in RETRYABLE_STATUS or status >= 500:
                if last:
                    raise ModelUnavailable(
                        f"model endpoint answered HTTP {status} after {attempts} attempt(s)"
                    )
                time.sleep(_backoff(attempt, response.headers.get("Retry-After")))
                continue
            detail = _error_detail(response)
            if status in (400, 413) and any(h in detail.casefold() for h in _OVERFLOW_HINTS):
                raise ContextOverflow(f"model context overflow (HTTP {status}): {detail}")
            raise ModelRejected(f"model endpoint refused the request (HTTP {status}): {detail}")
        raise AssertionError("unreachable")  # pragma: no cover

    def _completion(self, response: httpx.Response, latency: float) -> Completion:
        try:
            data = response.json()
            choice = data["choices"][0]
            content = choice["message"].get("content") or ""
            finish = str(choice.get("finish_reason") or "")
            usage = data.get("usage") or {}
            input_tokens = int(usage.get("prompt_tokens") or 0)
            output_tokens = int(usage.get("completion_tokens") or 0)
            answered_by = str(data.get("model") or self.settings.model)
        except (ValueError, KeyError, IndexError, TypeError, AttributeError):
            error = MalformedCompletion("the model endpoint's 200 body is not a chat completion")
            error.billed = True  # a 200 is a served request: assume it was charged
            raise error from None
        if not isinstance(content, str):
            raise MalformedCompletion("the completion's content is not text")
        return Completion(
            text=content,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            cost_usd=cost_usd(
                input_tokens,
                output_tokens,
                price_input=self.settings.price_input,
                price_output=self.settings.price_output,
            ),
            model=answered_by,
            finish_reason=finish,
            latency_seconds=latency,
        )


def _backoff(attempt: int, retry_after: str | None) -> float:
    if retry_after is not None:
        try:
            return min(max(float(retry_after), 0.0), BACKOFF_MAX_SECONDS)
        except ValueError:
            pass  # an HTTP date: fall back to the exponential schedule
    return min(BACKOFF_BASE_SECONDS * float(2**attempt), BACKOFF_MAX_SECONDS)


def _error_detail(response: httpx.Response) -> str:
    try:
        error = response.json().get("error")
    except (ValueError, AttributeError):
        return response.reason_phrase
    if isinstance(error, dict):
        return " ".join(str(error.get(k, "")) for k in ("code", "message")).strip()[:200]
    return str(error or response.reason_phrase)[:200]
