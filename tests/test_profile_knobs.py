"""Every profile knob has a reader.

A knob is a leaf field of the profile models (``memory_es/profiles/``). It counts as read
when the package source outside the profiles module accesses it as an attribute
(``.knob``) and also accesses the model it sits in (``.parent``): e.g.
``retrieval.bm25.k1`` needs ``.bm25`` and ``.k1``. A knob nothing reads fails here, so
a new knob must come with the code that reads it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from pydantic import BaseModel, create_model

from memory_es.domain.values import BeliefType
from memory_es.profiles import DecayTauDays, MemoryProfile, RetrievalProfile

ROOT = Path(__file__).resolve().parents[1]

# Knobs nothing reads yet, each awaiting its reader: none now (memory_es/lifecycle/ reads
# the decay sweep's knobs, its schedule, the usage deltas and L1's).
AWAITING_A_READER: set[str] = set()
# Read without a literal attribute access, for a stated reason.
READ_OTHERWISE = {
    # The document's version: Literal[1] rejects any other, so validation is its reader.
    "schema_version",
}


def _source() -> str:
    texts = []
    for folder in ("memory_es", "projections"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "profiles" not in path.relative_to(ROOT).parts:
                texts.append(path.read_text())
    return "\n".join(texts)


def _knobs(
    model: type[BaseModel], prefix: str = "", parent: str = ""
) -> Iterator[tuple[str, str, str]]:
    """(dotted path, attribute name, the attribute its model is reached by)."""
    for name, field in model.model_fields.items():
        kind = field.annotation
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            if kind is DecayTauDays:
                # Read by belief type, getattr(taus, record.belief_type): the model is the knob.
                yield f"{prefix}{name}", name, parent
                continue
            yield from _knobs(kind, f"{prefix}{name}.", name)
        else:
            yield f"{prefix}{name}", name, parent


def unread_knobs(model: type[BaseModel], source: str) -> list[str]:
    unread = []
    for path, name, parent in _knobs(model):
        reads = re.search(rf"\.{re.escape(name)}\b", source)
        reaches = not parent or re.search(rf"\.{re.escape(parent)}\b", source)
        if not (reads and reaches):
            unread.append(path)
    return unread


def test_every_profile_knob_has_a_reader() -> None:
    unread = set(unread_knobs(MemoryProfile, _source())) - AWAITING_A_READER - READ_OTHERWISE
    assert unread == set(), f"profile knobs nothing reads (wire or remove them): {sorted(unread)}"


def test_the_allow_list_holds_only_knobs_still_unread() -> None:
    unread = set(unread_knobs(MemoryProfile, _source()))
    every = {path for path, _, _ in _knobs(MemoryProfile)}
    assert every >= AWAITING_A_READER  # no stale name
    assert AWAITING_A_READER - unread == set(), "now read: take them off AWAITING_A_READER"


def test_a_new_knob_that_nothing_reads_fails() -> None:
    grown = create_model("GrownRetrieval", __base__=RetrievalProfile, never_read_knob_xyz=(int, 3))
    profile = create_model("GrownProfile", __base__=MemoryProfile, retrieval=(grown, ...))
    assert "retrieval.never_read_knob_xyz" in unread_knobs(profile, _source())


def test_decay_taus_are_named_by_belief_type() -> None:
    # getattr(taus, record.belief_type) reads them: every type has one, each one a type.
    assert set(DecayTauDays.model_fields) == {t.value for t in BeliefType}
