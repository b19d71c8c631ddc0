"""Compiled regular expressions kept between processes, as a module's bytecode is.

The hazard screen (memory_es/formation/hazards) compiles some sixty large patterns when
it is imported, and CPython's ``re`` parses and compiles in Python: about 25 ms of CPU,
the largest part of the start-up of ``memory-es session say``, the command an agent
hook runs on every turn (``cli.say_cpu_ratio``). A :class:`PatternCache`
stores, beside its module's bytecode (``__pycache__``, or under PYTHONPYCACHEPREFIX),
the program ``re`` hands its C engine for each pattern, and the next process builds the
pattern from it: the very object ``re.compile`` returns (``Pattern ==`` compares the
pattern, the flags and the program; tests/test_pattern_cache.py checks every hazard
pattern against ``re.compile``).

The CPython internals it uses, and only here: ``re._parser.parse``,
``re._compiler._code`` and ``_sre.compile`` (what ``re._compiler.compile`` does, step by
step), and ``_sre.MAGIC`` / ``_sre.CODESIZE`` with the interpreter's cache tag, which key
the file. Anything unexpected — another interpreter, a changed internal, an unreadable,
stale or corrupt file (the engine validates a program it is given) — and a pattern is
compiled by ``re.compile`` as before. It writes when bytecode would be written
(``sys.dont_write_bytecode``), atomically, and only the patterns its module compiled.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import re
import sys
from typing import Any

try:  # CPython's engine and compiler (see above); elsewhere: re.compile, no cache
    import _sre  # type: ignore[import-not-found]
    from re import _compiler, _parser  # type: ignore[attr-defined]

    _KEY: tuple[Any, ...] | None = (
        sys.implementation.cache_tag,
        sys.hexversion,
        _sre.MAGIC,
        _sre.CODESIZE,
    )
except (ImportError, AttributeError):  # pragma: no cover - not CPython
    _KEY = None

# (final flags, program, groups, groupindex, indexgroup): _sre.compile's arguments.
_Entry = tuple[int, list[int], int, dict[str, int], tuple[str | None, ...]]


class PatternCache:
    """``compile`` a module's patterns through the cache, then ``save`` once, at the end of
    the module: it writes the programs if any was compiled afresh and lets go of them
    (a pattern compiled after that is compiled as ``re.compile`` would, uncached)."""

    def __init__(self, module_file: str) -> None:
        self.path = _cache_path(module_file)
        self._stored: dict[tuple[str, int], _Entry] = self._load()
        self._used: dict[tuple[str, int], _Entry] = {}
        self.loaded = len(self._stored)  # programs the file held
        self.fresh = 0  # patterns compiled afresh (then written, when bytecode is)
        self.keys: set[tuple[str, int]] = set()  # (pattern, flags) of each compiled

    def compile(self, pattern: str, flags: int = 0) -> re.Pattern[str]:
        flags = int(flags)
        key = (pattern, flags)
        self.keys.add(key)
        entry = self._stored.get(key)
        if entry is not None:
            try:
                compiled: re.Pattern[str] = _sre.compile(pattern, *entry)
            except Exception:  # a stale or damaged program: compile it afresh
                entry = None
            else:
                self._used[key] = entry
                return compiled
        compiled, entry = _compile(pattern, flags)
        if entry is not None:
            self._used[key] = entry
            self.fresh += 1
        return compiled

    def save(self) -> None:
        """Write the programs of the patterns compiled so far if any was compiled afresh
        (only those: a pattern the module no longer has drops out), then release them."""
        used, self._used, self._stored = self._used, {}, {}
        if not self.fresh or self.path is None or sys.dont_write_bytecode:
            return
        temporary = f"{self.path}.{os.getpid()}.tmp"
        try:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            with open(temporary, "wb") as out:
                out.write(marshal.dumps((_KEY, used)))
            os.replace(temporary, self.path)
        except OSError:  # a read-only install: compile every time, as before
            with contextlib.suppress(OSError):
                os.unlink(temporary)

    def _load(self) -> dict[tuple[str, int], _Entry]:
        if self.path is None:
            return {}
        try:
            with open(self.path, "rb") as stored:
                key, entries = marshal.loads(stored.read())
        except (OSError, EOFError, ValueError, TypeError):
            return {}
        return entries if key == _KEY and isinstance(entries, dict) else {}


def _cache_path(module_file: str) -> str | None:
    """``<module>.<cache tag>.sre`` where the module's bytecode is cached."""
    if _KEY is None:
        return None
    from importlib.util import cache_from_source

    try:
        bytecode = cache_from_source(module_file)
    except (NotImplementedError, ValueError):
        return None
    return os.path.splitext(bytecode)[0] + ".sre"


def _compile(pattern: str, flags: int) -> tuple[re.Pattern[str], _Entry | None]:
    """What ``re._compiler.compile`` does, keeping the program; ``re.compile`` (and no
    entry) if the internals are not the ones this was written against."""
    if _KEY is not None and not flags & re.DEBUG:
        try:
            parsed = _parser.parse(pattern, flags)
            code = [int(op) for op in _compiler._code(parsed, flags)]
            groupindex = dict(parsed.state.groupdict)
            indexgroup: list[str | None] = [None] * parsed.state.groups
            for name, index in groupindex.items():
                indexgroup[index] = name
            entry: _Entry = (
                flags | parsed.state.flags,
                code,
                parsed.state.groups - 1,
                groupindex,
                tuple(indexgroup),
            )
            return _sre.compile(pattern, *entry), entry
        except re.error:
            raise
        except Exception:  # pragma: no cover - a changed internal
            pass
    return re.compile(pattern, flags), None
