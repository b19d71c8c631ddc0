"""Read a dataset file one item at a time.

The public files are large (LongMemEval's ``_s`` file is ~270 MB, its ``_m`` file
~2.7 GB), so a JSON list is parsed item by item with ``ijson`` and a JSONL file line
by line; only the current item is ever held.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import ijson

from memory_es.benchmarks.external.model import MalformedDataset


def _first_char(path: Path) -> str:
    with path.open("rb") as handle:
        while True:
            chunk = handle.read(4096)
            if not chunk:
                return ""
            stripped = chunk.lstrip(b"\xef\xbb\xbf \t\r\n")
            if stripped:
                return chr(stripped[0])


def iter_json_list(path: Path) -> Iterator[dict[str, Any]]:
    """The objects of a top-level JSON list, one at a time."""
    if _first_char(path) != "[":
        raise MalformedDataset("expected a JSON list at the top level")
    with path.open("rb") as handle:
        try:
            for item in ijson.items(handle, "item", use_float=True):
                if not isinstance(item, dict):
                    raise MalformedDataset("expected a list of JSON objects")
                yield item
        except ijson.JSONError as error:
            raise MalformedDataset(f"not valid JSON: {error}") from None


def iter_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    """The objects of a JSON Lines file, one per non-blank line."""
    import orjson

    with path.open("rb") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                item = orjson.loads(line)
            except orjson.JSONDecodeError:
                raise MalformedDataset(f"line {number} is not valid JSON") from None
            if not isinstance(item, dict):
                raise MalformedDataset(f"line {number} is not a JSON object")
            yield item


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()
