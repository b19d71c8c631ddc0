"""An orjson transcoder for ``eventsourcing``: the stored format of its JSONTranscoder.

``eventsourcing`` 9.5 chooses the transcoder from the ``TRANSCODER_TOPIC`` setting and
registers the application's transcodings (UUID, Decimal, datetime) on any
``JSONTranscoder``. This subclass keeps those transcodings and the exact stored format —
compact JSON, UTF-8, custom values as ``{"_type_": name, "_data_": ...}`` — so logs
written by either transcoder read back identically with the other, but parses and
serialises with orjson. orjson has no object hook and writes UUIDs itself, so custom
values are swapped in and out by one walk over the containers (events are small, flat
dicts; the walk only descends into dicts and lists). A list of plain scalars (or of lists
of them) is passed through whole, its element types checked at C speed: an aggregate
snapshot holds columns of many thousand strings.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import chain
from typing import Any

import orjson
from eventsourcing.persistence import JSONTranscoder, TranscodingNotRegisteredError

_PLAIN = (str, int, float, bool)
_PLAIN_TYPES = frozenset({str, int, float, bool, type(None)})
_CONTAINERS = frozenset({dict, list})
_SEQUENCES = frozenset({list, tuple})
_OPTIONS = orjson.OPT_NON_STR_KEYS
# Above this many bytes, counting the tags costs more than the walk: a large state (a
# principal's snapshot: 20 MB at 100k beliefs, its columns a few hundred strings) has
# few containers and long strings, which the count reads byte by byte.
_COUNTED = 1 << 16
# Below this length the plain walk is cheaper than building a set of element types
# (an event's lists are short: its source ids, its subjects).
_SHORT = 8


def _plain_rows(
    values: list[Any] | tuple[Any, ...], plain: Callable[[Iterable[type]], bool]
) -> bool:
    """True when ``plain`` holds for the element types of values, or of the lists it
    holds (a column of source ids per belief): checked without a Python-level loop."""
    kinds = set(map(type, values))
    if plain(kinds):
        return True
    return kinds <= _SEQUENCES and plain(set(map(type, chain.from_iterable(values))))


class OrjsonTranscoder(JSONTranscoder):
    def encode(self, obj: Any) -> bytes:
        try:
            return orjson.dumps(self._tag(obj), option=_OPTIONS)
        except orjson.JSONEncodeError as error:
            raise TranscodingNotRegisteredError(str(error)) from error

    def encode_with(self, obj: dict[str, Any], extra: dict[str, Any]) -> bytes:
        """``encode`` of ``{**obj, **extra}`` where ``extra``'s values are plain JSON
        already (strings, ints, dicts and lists of them: the sealing mapper's box): the
        same bytes, without the walk for custom values over ``extra``."""
        tagged = self._tag(obj)
        tagged.update(extra)
        try:
            return orjson.dumps(tagged, option=_OPTIONS)
        except orjson.JSONEncodeError as error:
            raise TranscodingNotRegisteredError(str(error)) from error

    def decode(self, data: bytes) -> Any:
        obj = orjson.loads(data)
        if type(data) is not bytes:
            return self._untag(obj)
        if len(data) > _COUNTED:
            return self._untag(obj)  # a snapshot: its few long values are walked past
        # Every tagged dict writes the key "_type_" (never escaped), so this count bounds
        # the tagged values; an event holds one (its timestamp), found without a walk.
        tags = data.count(b'"_type_"')
        if tags == 0:
            return obj
        if tags == 1 and type(obj) is dict:
            for key, value in obj.items():
                if (
                    type(value) is dict
                    and len(value) == 2
                    and "_type_" in value
                    and "_data_" in value
                ):
                    obj[key] = self._decode_obj(value)
                    return obj
        # The walk stops once it has decoded as many tagged dicts as the count: a
        # snapshot's three timestamps come before its columns of many thousand values.
        return self._untag(obj, [tags])

    def _tag(self, obj: Any) -> Any:
        """obj with its registered custom values as tagged dicts (copied where any are)."""
        kind = type(obj)
        if kind is dict:
            return {key: self._tag(value) for key, value in obj.items()}
        if kind is list or kind is tuple:
            if len(obj) > _SHORT and _plain_rows(obj, _PLAIN_TYPES.issuperset):
                return obj  # nothing to tag; orjson writes a tuple as an array too
            return [self._tag(value) for value in obj]
        if obj is None or kind in _PLAIN:
            return obj
        transcoding = self.types.get(kind)
        if transcoding is not None:
            return {"_type_": transcoding.name, "_data_": self._tag(transcoding.encode(obj))}
        if isinstance(obj, _PLAIN):  # str and int enums, like the json module
            return obj
        raise TranscodingNotRegisteredError(
            f"Object of type {kind} is not serializable. Please define and register"
            " a custom transcoding for this type."
        )

    def _untag(self, obj: Any, left: list[int] | None = None) -> Any:
        """obj with every tagged dict decoded, innermost first (as json's object hook).

        ``left`` holds how many tagged dicts may remain (an upper bound: the count of
        ``"_type_"`` in the encoded bytes); the walk ends when none can."""
        if left is None:
            left = [-1]  # unbounded
        kind = type(obj)
        if kind is dict:
            for key, value in obj.items():
                if not left[0]:
                    break
                if type(value) is dict or type(value) is list:
                    obj[key] = self._untag(value, left)
            if len(obj) == 2 and "_type_" in obj and "_data_" in obj:
                left[0] -= 1
                return self._decode_obj(obj)
            return obj
        if kind is list and (len(obj) <= _SHORT or not _plain_rows(obj, _CONTAINERS.isdisjoint)):
            for i, value in enumerate(obj):
                if not left[0]:
                    break
                if type(value) is dict or type(value) is list:
                    obj[i] = self._untag(value, left)
        return obj
