"""A real chat-completions server on 127.0.0.1 with scripted answers, for the model tests.

``ScriptedChatServer(script)`` serves ``POST /v1/chat/completions`` from a threaded
``http.server`` on a free port; ``script(request_body, n)`` returns the ``Reply`` for the
n-th request (0-based). Every request body is kept (``requests``), so a test can say how
many model calls were made and what they carried. No network beyond the loopback.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Reply:
    content: str | None = ""
    prompt_tokens: int | None = 100
    completion_tokens: int | None = 10
    model: str | None = None  # default: the model the request named
    finish_reason: str = "stop"
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    error: dict[str, Any] | None = None  # the error object of a non-200 answer
    raw: bytes | None = None  # send these bytes instead of a completion
    delay_seconds: float = 0.0  # wait before answering (a slow server, a timeout)


Script = Callable[[dict[str, Any], int], Reply]


class ScriptedChatServer:
    def __init__(self, script: Script) -> None:
        self.script = script
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def env(self, *, price_input: float = 1.0, price_output: float = 2.0) -> dict[str, str]:
        """The model settings that point the model port at this server."""
        return {
            "MEMORY_ES_MODEL_BASE_URL": self.base_url,
            "MEMORY_ES_MODEL": "scripted-model",
            "MEMORY_ES_MODEL_API_KEY": "test-key",
            "MEMORY_ES_MODEL_PRICE_INPUT": str(price_input),
            "MEMORY_ES_MODEL_PRICE_OUTPUT": str(price_output),
            "MEMORY_ES_MODEL_TIMEOUT_SECONDS": "10",
            "MEMORY_ES_MODEL_RETRIES": "0",
        }

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                if self.path != "/v1/chat/completions":
                    self._send(404, {"error": {"message": "not found"}}, {})
                    return
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length))
                with server._lock:
                    n = len(server.requests)
                    server.requests.append(body)
                    server.headers.append(dict(self.headers))
                reply = server.script(body, n)
                if reply.delay_seconds:
                    time.sleep(reply.delay_seconds)
                if reply.raw is not None:
                    self._send_bytes(reply.status, reply.raw, reply.headers)
                    return
                if reply.status != 200:
                    self._send(reply.status, {"error": reply.error or {}}, reply.headers)
                    return
                usage: dict[str, int] = {}
                if reply.prompt_tokens is not None:
                    usage["prompt_tokens"] = reply.prompt_tokens
                if reply.completion_tokens is not None:
                    usage["completion_tokens"] = reply.completion_tokens
                document: dict[str, Any] = {
                    "id": f"chatcmpl-{n}",
                    "object": "chat.completion",
                    "model": reply.model or body.get("model"),
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": reply.content},
                            "finish_reason": reply.finish_reason,
                        }
                    ],
                }
                if usage:
                    document["usage"] = usage
                self._send(200, document, reply.headers)

            def _send(self, status: int, document: object, headers: dict[str, str]) -> None:
                self._send_bytes(status, json.dumps(document).encode(), headers)

            def _send_bytes(self, status: int, data: bytes, headers: dict[str, str]) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

        return Handler


@contextmanager
def chat_server(script: Script) -> Iterator[ScriptedChatServer]:
    server = ScriptedChatServer(script)
    server.start()
    try:
        yield server
    finally:
        server.stop()
