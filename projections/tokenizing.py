"""A rebuild's second process: each page's beliefs tokenized while the page before is
projected.

Tokenizing is the largest part of a rebuild that depends on nothing but the event (the
stemmer is pure Python and meets every word cold in a fresh process). With two workers a
rebuild forks one process that does nothing but tokenize: the rebuild reads each page one
ahead and sends the worker that page's ``BeliefFormed`` indexed texts, projects and
writes the page before meanwhile, and takes the terms back when it gets to the page. The
worker runs the one tokenizer on the same texts, so the read model is the same; and
whatever happens to it (it died, it could not start) the rebuild tokenizes what is
missing itself: the worker only ever saves time.

The worker touches no database: the parent's connections (a SQLite file's locks and its
shared-memory index, a PostgreSQL session) are not safe to use across a fork, and it
closes every inherited descriptor but its two pipes, so the rebuild lock and the
parent's sessions end when the parent does.

Why not a partition by principal: one principal can hold most of a log's beliefs (the
belief-heavy bench log: 10k of its 11k), and a principal's beliefs are numbered and their
postings appended in log order, so a partition by principal leaves that log on one
worker. Tokenizing splits by belief whatever the principals.

Unix only (``os.fork``); elsewhere the rebuild runs in one process.
"""

from __future__ import annotations

import gc
import marshal
import os
import select
import signal
import sys
import threading
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from typing import BinaryIO

_LENGTH = 8  # bytes of a frame's length prefix
_MAX_FD = 1 << 16
# A worker that sends nothing for this long is taken for stuck (a page's terms take well
# under a second): the rebuild tokenizes the rest itself.
_ANSWER_TIMEOUT_S = 60.0

Tokenize = Callable[[str], Mapping[str, int]]


class TokenizingWorker:
    """The parent's end: :meth:`submit` a page's texts under a key, :meth:`collect` the
    key's terms later (answers come in the order the requests went)."""

    def __init__(self, pid: int, requests: int, answers: int) -> None:
        self._pid = pid
        self._requests = os.fdopen(requests, "wb")
        self._answers = answers  # read raw, with a timeout (_read_answer)
        self._alive = True
        self._sent: deque[tuple[int, int]] = deque()  # (key, texts) not collected yet
        # Requests go from a thread: the worker may be blocked writing an answer the
        # parent has not read yet, and the parent must not then block writing to it.
        self._sender: threading.Thread | None = None

    @classmethod
    def start(cls, tokenize: Tokenize) -> TokenizingWorker | None:
        """Fork the worker; None where there is no fork."""
        if not hasattr(os, "fork") or sys.platform == "win32":
            return None
        from_parent, to_worker = os.pipe()
        from_worker, to_parent = os.pipe()
        pid = os.fork()
        if pid == 0:  # the worker: never returns
            low, high = sorted((from_parent, to_parent))
            os.closerange(3, low)
            os.closerange(low + 1, high)
            os.closerange(high + 1, _MAX_FD)
            code = 0
            try:
                _serve(tokenize, from_parent, to_parent)
            except BaseException:
                code = 1
            os._exit(code)
        os.close(from_parent)
        os.close(to_parent)
        return cls(pid, to_worker, from_worker)

    def submit(self, key: int, texts: Sequence[str]) -> None:
        """Send texts to tokenize under ``key`` (the page's first position, say)."""
        if not self._alive:
            return
        self._join_sender()
        frame = marshal.dumps(list(texts))
        self._sent.append((key, len(texts)))
        self._sender = threading.Thread(target=self._send, args=(frame,), daemon=True)
        self._sender.start()

    def _send(self, frame: bytes) -> None:
        try:
            _write_frame(self._requests, frame)
        except OSError:
            self._alive = False

    def _join_sender(self) -> None:
        if self._sender is not None:
            self._sender.join()
            self._sender = None

    def collect(self, key: int) -> list[Mapping[str, int]] | None:
        """The terms of the texts submitted under ``key``, in order (answers to requests
        sent before it are read and dropped); None if it was never submitted or the
        worker failed (the caller tokenizes them itself)."""
        while self._alive and any(k == key for k, _ in self._sent):
            sent_key, count = self._sent.popleft()
            answers: list[Mapping[str, int]] | None = None
            head = _read_exact(self._answers, _LENGTH)
            body = None if head is None else _read_exact(self._answers, _size(head))
            with suppress(ValueError, EOFError, TypeError):
                answers = None if body is None else marshal.loads(body)
            if not isinstance(answers, list) or len(answers) != count:
                self._alive = False  # dead, stuck or garbled: tokenized here from now on
                return None
            if sent_key == key:
                return answers
        return None

    def close(self) -> None:
        """End the worker and reap it."""
        with suppress(ProcessLookupError):
            os.kill(self._pid, signal.SIGKILL)
        self._join_sender()  # the pipe breaks under it: it ends
        with suppress(ChildProcessError):  # reaped already (a SIGCHLD handler)
            os.waitpid(self._pid, 0)
        with suppress(OSError):
            self._requests.close()
        with suppress(OSError):
            os.close(self._answers)


def _serve(tokenize: Tokenize, requests_fd: int, answers_fd: int) -> None:
    # Nothing is imported here: another thread of the parent may have held the import
    # lock at the fork, and the worker would wait on it for ever.
    gc.disable()  # a short-lived process that builds no cycles
    with os.fdopen(requests_fd, "rb") as requests, os.fdopen(answers_fd, "wb") as answers:
        while (frame := _read_frame(requests)) is not None:
            texts: list[str] = marshal.loads(frame)
            _write_frame(answers, marshal.dumps([dict(tokenize(text)) for text in texts]))


def _write_frame(out: BinaryIO, data: bytes) -> None:
    out.write(len(data).to_bytes(_LENGTH, "little"))
    out.write(data)
    out.flush()


def _size(head: bytes) -> int:
    return int.from_bytes(head, "little")


def _read_exact(fd: int, size: int) -> bytes | None:
    """``size`` bytes from the worker, or None at its end or after
    :data:`_ANSWER_TIMEOUT_S` without a byte (stuck: the parent goes on without it)."""
    parts: list[bytes] = []
    left = size
    while left:
        ready, _, _ = select.select([fd], [], [], _ANSWER_TIMEOUT_S)
        if not ready:
            return None
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            return None
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)


def _read_frame(source: BinaryIO) -> bytes | None:
    head = source.read(_LENGTH)
    if len(head) < _LENGTH:
        return None
    size = int.from_bytes(head, "little")
    body = source.read(size)
    return body if len(body) == size else None
