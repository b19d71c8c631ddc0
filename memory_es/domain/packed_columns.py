"""Packed columns: how the belief table's columns are stored in a snapshot.

A text column is held in chunks of rows, each chunk one string until a row in it is
read (TextColumn); an integer column, and a sorted order of rows, as the base64 of a
machine-integer array. A cold load then decodes a few hundred long strings instead of a
million short ones and no list of integers.
"""

from __future__ import annotations

import base64
import json
import sys
from array import array
from collections.abc import Iterable, Iterator
from typing import Any

# Between the values of a packed chunk: a newline, which JSON writes in two bytes (a
# control character takes six) and no normalized statement or subject key holds (their
# white space is collapsed); a column whose values hold one anyway is stored as a plain
# list (TextColumn.packed). A row's source ids are joined by a space, which no id holds
# (ids are generated; a row whose ids would hold either is kept as JSON: join_ids).
SEPARATOR = "\n"
ID_SEPARATOR = " "
# A text column's chunk: this many rows, packed as one string until one of them is read.
_CHUNK_BITS = 10
_CHUNK = 1 << _CHUNK_BITS
_CHUNK_MASK = _CHUNK - 1


def pack_ints(values: list[int] | list[bool]) -> dict[str, str]:
    """An integer column as the base64 of the smallest array that holds it (an array of
    a type too small for a value refuses it at C speed, so no scan in Python)."""
    for typecode in ("B", "H", "I"):
        try:
            packed = array(typecode, values)
        except OverflowError:
            continue
        return {"type": typecode, "data": array_text(packed)}
    return {"type": "q", "data": array_text(array("q", values))}


def unpack_ints(packed: dict[str, str]) -> list[int]:
    return text_array(packed["type"], packed["data"]).tolist()


def array_text(values: array[int]) -> str:
    if sys.byteorder == "big":
        values = array(values.typecode, values)
        values.byteswap()
    return base64.b64encode(values.tobytes()).decode("ascii")


def text_array(typecode: str, text: str) -> array[int]:
    values = array(typecode, base64.b64decode(text))
    if sys.byteorder == "big":
        values.byteswap()
    return values


def join_ids(ids: Iterable[str]) -> str:
    ids = list(ids)
    if any(ID_SEPARATOR in i or SEPARATOR in i for i in ids) or (ids and ids[0].startswith("[")):
        return json.dumps(ids)  # never a raw newline: JSON escapes it
    return ID_SEPARATOR.join(ids)


def split_ids(joined: str) -> list[str]:
    if joined.startswith("["):
        ids: list[str] = json.loads(joined)
        return ids
    return joined.split(ID_SEPARATOR) if joined else []


class TextColumn:
    """A column of text values in chunks of ``_CHUNK`` rows. A chunk a snapshot stored is
    one string (its values joined by ``SEPARATOR``) until a row in it is read: a cold load
    splits only the chunks a command reaches — the few a bisection probes, those of the
    candidate rows — not every value of every column."""

    __slots__ = ("_chunks", "_rows")

    def __init__(self, values: Iterable[str] = ()) -> None:
        values = list(values)
        self._rows = len(values)
        self._chunks: list[str | list[str]] = [
            values[start : start + _CHUNK] for start in range(0, len(values), _CHUNK)
        ]

    @classmethod
    def from_packed(cls, stored: dict[str, Any]) -> TextColumn:
        if "values" in stored:
            return cls(stored["values"])
        column = cls()
        column._chunks = list(stored["chunks"])
        column._rows = int(stored["rows"])
        return column

    def packed(self) -> dict[str, Any]:
        """Each chunk as one string; every value as a plain list if one holds ``SEPARATOR``."""
        chunks: list[str] = []
        for chunk in self._chunks:
            if isinstance(chunk, str):
                chunks.append(chunk)  # stored so, and never read since
                continue
            joined = SEPARATOR.join(chunk)
            if joined.count(SEPARATOR) != len(chunk) - 1:
                return {"values": list(self)}
            chunks.append(joined)
        return {"rows": self._rows, "chunks": chunks}

    def _chunk(self, number: int) -> list[str]:
        chunk = self._chunks[number]
        if isinstance(chunk, str):
            chunk = self._chunks[number] = chunk.split(SEPARATOR)
        return chunk

    def _index(self, row: int) -> int:
        if row < 0:
            row += self._rows
        if not 0 <= row < self._rows:
            raise IndexError(row)
        return row

    def __getitem__(self, row: int) -> str:
        # The bisections' key: kept to one call for a row of a split chunk.
        if 0 <= row < self._rows:
            chunk = self._chunks[row >> _CHUNK_BITS]
            if type(chunk) is list:
                return chunk[row & _CHUNK_MASK]
        row = self._index(row)
        return self._chunk(row >> _CHUNK_BITS)[row & _CHUNK_MASK]

    def __setitem__(self, row: int, value: str) -> None:
        row = self._index(row)
        self._chunk(row >> _CHUNK_BITS)[row & _CHUNK_MASK] = value

    def append(self, value: str) -> None:
        if self._rows & _CHUNK_MASK == 0:
            self._chunks.append([value])
        else:
            self._chunk(len(self._chunks) - 1).append(value)
        self._rows += 1

    def __len__(self) -> int:
        return self._rows

    def __iter__(self) -> Iterator[str]:
        for number in range(len(self._chunks)):
            yield from self._chunk(number)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, TextColumn | list):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"TextColumn({list(self)!r})"
