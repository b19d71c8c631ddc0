"""The model port: one chat completion in, its text and its billed tokens out.

Two callers share it: the live arm of the memory benchmark (``benchmarks/memory_benchmark/
live.py``) and the opt-in provider-assisted extractor (``memory_es/formation/
provider_extractor.py``). One provider ships, for OpenAI-compatible chat-completions
servers (hosted APIs and local servers alike): ``memory_es.model.openai_compat``. It is
configured by environment (``ModelSettings.from_env``) and imported lazily, so neither
``memory-es --help`` nor any hot path loads an HTTP client.

Errors say what the caller may do about them: ``ModelUnavailable`` is transient (the
provider already retried it with backoff), ``ModelRejected`` is permanent (a 4xx other
than 408/409/429: asking again gives the same answer), ``ContextOverflow`` is the
permanent kind a request too long for the model's window gets.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from memory_es.errors import MemoryEsError, UsageError

ENV_BASE_URL = "MEMORY_ES_MODEL_BASE_URL"
ENV_MODEL = "MEMORY_ES_MODEL"
ENV_API_KEY = "MEMORY_ES_MODEL_API_KEY"
ENV_PRICE_INPUT = "MEMORY_ES_MODEL_PRICE_INPUT"
ENV_PRICE_OUTPUT = "MEMORY_ES_MODEL_PRICE_OUTPUT"
ENV_TIMEOUT = "MEMORY_ES_MODEL_TIMEOUT_SECONDS"
ENV_RETRIES = "MEMORY_ES_MODEL_RETRIES"

DEFAULT_TIMEOUT_SECONDS = 60.0
DEFAULT_RETRIES = 3


class ModelNotConfigured(UsageError):
    """The model port was asked for but the environment does not name a model."""


class ModelError(MemoryEsError):
    """A completion failed; ``billed`` says whether the provider charged for it."""

    exit_code = 1
    billed = False


class ModelUnavailable(ModelError):
    """Transient (timeout, connection, 429, 5xx) and still failing after the retries."""


class ModelRejected(ModelError):
    """Permanent: the server refused the request itself (a 4xx other than 408/409/429)."""


class ContextOverflow(ModelRejected):
    """Permanent: the request does not fit the model's context window."""


class MalformedCompletion(ModelError):
    """The server answered 200 with a body that is not a chat completion."""


@dataclass(frozen=True)
class ChatMessage:
    role: str  # "system" | "user" | "assistant"
    content: str


@dataclass(frozen=True)
class Completion:
    """One completion: the text, the tokens the provider billed (``usage``), what they
    cost at the configured prices, the model the server says answered, why it stopped."""

    text: str
    input_tokens: int
    output_tokens: int
    cost_usd: float
    model: str
    finish_reason: str
    latency_seconds: float


class ChatModel(Protocol):
    """The port. ``provider`` and ``model`` identify who answers (recorded in evidence);
    ``price_input`` / ``price_output`` are USD per million tokens."""

    @property
    def provider(self) -> str: ...

    @property
    def model(self) -> str: ...

    @property
    def price_input(self) -> float: ...

    @property
    def price_output(self) -> float: ...

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int,
        temperature: float = 0.0,
        json_object: bool = False,
    ) -> Completion: ...


def cost_usd(
    input_tokens: int, output_tokens: int, *, price_input: float, price_output: float
) -> float:
    """Billed tokens at prices in USD per million tokens."""
    return (input_tokens * price_input + output_tokens * price_output) / 1_000_000


@dataclass(frozen=True)
class ModelSettings:
    base_url: str
    model: str
    api_key: str | None
    price_input: float  # USD per million input tokens
    price_output: float  # USD per million output tokens
    timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS
    retries: int = DEFAULT_RETRIES

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> ModelSettings:
        """Read the settings; a missing or malformed one is a ``ModelNotConfigured``."""
        env = os.environ if env is None else env
        missing = [
            name
            for name in (ENV_BASE_URL, ENV_MODEL, ENV_PRICE_INPUT, ENV_PRICE_OUTPUT)
            if not env.get(name, "").strip()
        ]
        if missing:
            raise ModelNotConfigured(
                "no model configured: set "
                + ", ".join(missing)
                + f" (and {ENV_API_KEY} for a hosted API); see docs/benchmark.md"
            )
        base_url = env[ENV_BASE_URL].strip().rstrip("/")
        if not base_url.startswith(("http://", "https://")):
            raise ModelNotConfigured(f"{ENV_BASE_URL} must be an http(s) URL: {base_url!r}")
        return cls(
            base_url=base_url,
            model=env[ENV_MODEL].strip(),
            api_key=env.get(ENV_API_KEY, "").strip() or None,
            price_input=_number(env, ENV_PRICE_INPUT, float, None),
            price_output=_number(env, ENV_PRICE_OUTPUT, float, None),
            timeout_seconds=_number(env, ENV_TIMEOUT, float, DEFAULT_TIMEOUT_SECONDS),
            retries=int(_number(env, ENV_RETRIES, int, DEFAULT_RETRIES)),
        )


def _number(
    env: Mapping[str, str], name: str, kind: type[float] | type[int], default: float | None
) -> float:
    raw = env.get(name, "").strip()
    if not raw:
        if default is None:
            raise ModelNotConfigured(f"{name} is not set")
        return default
    try:
        value = kind(raw)
    except ValueError:
        raise ModelNotConfigured(f"{name} must be a number: {raw!r}") from None
    if value < 0:
        raise ModelNotConfigured(f"{name} must not be negative: {raw!r}")
    return value


def model_from_env(env: Mapping[str, str] | None = None) -> ChatModel:
    """The configured provider (OpenAI-compatible chat completions), imported lazily."""
    settings = ModelSettings.from_env(env)
    from memory_es.model.openai_compat import OpenAICompatibleModel

    return OpenAICompatibleModel(settings)
