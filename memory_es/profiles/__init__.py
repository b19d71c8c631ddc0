"""Memory profiles: the operator-reviewable knobs, as one validated configuration document.

``profiles.yaml`` (shipped beside this module) is the one source of the shipped values:
the models below hold the knobs' types and bounds, no defaults, and
``memory_es/shipped_profile.py`` is generated from the file (``python -m
memory_es.profiles``; a test fails while it is stale). An operator overlay (the
``--profile PATH`` CLI option, ``MEMORY_ES_PROFILE``, or ``memory_es.open(profile=...)``)
is merged over it key by key and validated again: every model is frozen and rejects
unknown keys, so a typo fails loudly instead of being ignored.

The session idle boundary is deliberately *not* a knob (gate.memory.profiles_wired): it is part of
the
formation policy a belief records, and a per-deployment threshold would make two beliefs
formed under the same recorded policy incomparable.

Every knob has a reader (``tests/test_profile_knobs.py`` fails for one that nothing
reads). Removed because nothing read them: ``formation.session_boundary_enabled``,
``formation.established_facts_enabled``, ``snapshot.async`` and ``snapshot.child`` (the
session snapshot's budgets are ``context.snapshot_max_*``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memory_es.errors import UsageError
from memory_es.profile_document import PROFILE_ENV, merge, shipped_document, yaml_loader

_LOADER = yaml_loader()


class _Knobs(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


class RankingWeights(_Knobs):
    """The six additive coefficients of the ranking formula (docs/retrieval.md)."""

    match: float = Field(ge=0)
    # Strictly positive: an overlay must not flatten the lifecycle or provenance order.
    confidence: float = Field(gt=0)
    reinforce: float = Field(ge=0)
    authority: float = Field(gt=0)
    scope: float = Field(ge=0)
    utility: float = Field(ge=0)
    # A statement that carries a time, when the question asks when (retrieval/temporal.py).
    dated: float = Field(ge=0)


class LifecycleWeights(_Knobs):
    """Multipliers on the weighted sum, by status."""

    active: float = Field(gt=0, le=1)
    provisional: float = Field(gt=0, le=1)


class DecayTauDays(_Knobs):
    """Time constant of reinforcement decay per belief type: a preference fades slowest."""

    fact: float = Field(gt=0)
    preference: float = Field(gt=0)
    relationship: float = Field(gt=0)
    user_model_attr: float = Field(gt=0)
    procedure_pointer: float = Field(gt=0)


class Bm25(_Knobs):
    """Candidate relevance (Okapi BM25) computed by the candidate query."""

    k1: float = Field(ge=0)
    b: float = Field(ge=0, le=1)


class UsageDeltas(_Knobs):
    cited_utility_delta: float = Field(ge=0, le=1)
    uncited_utility_delta: float = Field(ge=0, le=1)


class RetrievalProfile(_Knobs):
    semantic_enabled: bool
    embedder: Literal["hashed", "minilm"]
    reciprocal_rank_fusion_k: int = Field(ge=1)
    durable_item_share: float = Field(ge=0, le=1)
    per_subject_cap: int = Field(ge=1)
    per_source_cap: int = Field(ge=0)  # items per source turn in a query; 0: off
    time_decay_enabled: bool
    # Seed 002's bounded +-2 quality reorder inside the chosen pool: opt-in, off.
    quality_reorder_enabled: bool
    # The reorder's query-time freshness hint (RFC 002): alpha 1 is neutral (the default);
    # below 1, current-state beliefs under current or temporal intent lose up to 1 - alpha
    # of their quality with age (half life in days). A calibration input, never a default.
    quality_freshness_alpha: float = Field(ge=0, le=1)
    quality_freshness_half_life_days: float = Field(gt=0)
    ranking_weights: RankingWeights
    lifecycle_weights: LifecycleWeights
    decay_tau_days: DecayTauDays
    stale_penalty: float = Field(ge=0)
    near_duplicate_penalty: float = Field(ge=0)
    near_duplicate_jaccard: float = Field(gt=0, le=1)
    bm25: Bm25
    usage: UsageDeltas


class DecaySettings(_Knobs):
    floor_confidence: float = Field(ge=0, le=1)
    step: float = Field(gt=0, le=1)
    max_per_sweep: int = Field(ge=1)


class FormationProfile(_Knobs):
    """Formation knobs only; the formation logic reads them (memory_es/formation/)."""

    scheduled_enabled: bool
    scheduled_interval_seconds: int = Field(ge=60)
    # A declarative sentence no rule reads (or reads only in part) forms "User said: ..."
    # at inferred authority (on since formation@4; docs/formation.md "Residue").
    residue_enabled: bool
    # Opt-in: candidates proposed by a model behind the model port (MEMORY_ES_MODEL_*),
    # at inferred authority; "clauses" is the deterministic extractor (docs/formation.md).
    extractor: Literal["clauses", "provider"]
    decay: DecaySettings


class ContextProfile(_Knobs):
    """The interactive session's budgets: its snapshot, and the in-turn recall class that
    the base recall and the recall delta share, inside the model's window."""

    snapshot_max_items: int = Field(ge=1)
    snapshot_max_tokens: int = Field(ge=1)
    recall_max_items: int = Field(ge=0)
    recall_max_tokens: int = Field(ge=0)
    window_tokens: int = Field(ge=1)


class TraceProfile(_Knobs):
    enabled: bool
    operator_retention_days: int = Field(ge=1)


class L1Settings(_Knobs):
    """RFC 002's reversible automated deactivation (docs/lifecycle.md). Off by default;
    while off, ``maintenance run`` still reports what it would deactivate (dry run first)."""

    enabled: bool
    importance_floor: int = Field(ge=0, le=3)  # at or below: "low" only
    retention_days: int = Field(ge=1)  # idle and interval age, both
    max_per_sweep: int = Field(ge=1)


class AlignmentSettings(_Knobs):
    """RFC 002's bounded near-duplicate alignment on write (docs/lifecycle.md "L2"). Off
    by default; on, it records relations and review proposals, never a merge."""

    enabled: bool
    max_candidates: int = Field(ge=1)  # lexical candidates read per belief
    min_similarity: float = Field(gt=0, le=1)  # content-term Jaccard


class LifecycleProfile(_Knobs):
    l1: L1Settings
    alignment: AlignmentSettings


class MemoryProfile(_Knobs):
    schema_version: Literal[1]
    retrieval: RetrievalProfile
    formation: FormationProfile
    context: ContextProfile
    trace: TraceProfile
    lifecycle: LifecycleProfile


def load_profile(overlay: str | Path | dict[str, Any] | None = None) -> MemoryProfile:
    """The shipped document, with an operator overlay (a YAML path or a mapping) merged in."""
    document = shipped_document()
    if overlay is not None:
        if isinstance(overlay, dict):
            extra = overlay
        else:
            path = Path(overlay)
            try:
                loaded = yaml.load(path.read_text(), Loader=_LOADER)
            except OSError as error:
                raise UsageError(f"cannot read profile {path}: {error.strerror}") from None
            except yaml.YAMLError as error:
                raise UsageError(f"profile {path} is not valid YAML: {error}") from None
            extra = loaded or {}
            if not isinstance(extra, dict):
                raise UsageError(f"profile {path} must be a YAML mapping")
        document = merge(document, extra)
    try:
        return MemoryProfile.model_validate(document)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise UsageError(f"invalid memory profile at {where}: {first['msg']}") from None


SHIPPED_MODULE = Path(__file__).resolve().parents[1] / "shipped_profile.py"

_SHIPPED_HEADER = '''"""The shipped profile as validated, as plain data: generated, do not edit.

Its one source is ``memory_es/profiles/profiles.yaml``; after changing that file run
``python -m memory_es.profiles`` to write this one again (tests/test_profiles.py fails
while the two differ). A store opened with no overlay reads its knobs from here through
``profile_document.shipped_profile``, so a command such as ``memory-es recall`` imports
neither pydantic nor yaml.
"""

from __future__ import annotations

from typing import Any

SHIPPED_PROFILE: dict[str, Any] = '''


def _render(value: Any, depth: int) -> str:
    if not isinstance(value, dict):
        return json.dumps(value) if isinstance(value, str) else repr(value)
    pad = "    " * (depth + 1)
    rows = "".join(f"{pad}{json.dumps(k)}: {_render(v, depth + 1)},\n" for k, v in value.items())
    return "{\n" + rows + "    " * depth + "}"


def shipped_module_text() -> str:
    """``memory_es/shipped_profile.py`` as generated from the shipped profiles.yaml."""
    return _SHIPPED_HEADER + _render(load_profile().model_dump(), 0) + "\n"


def resolve_profile(profile: MemoryProfile | str | Path | None = None) -> MemoryProfile:
    """An explicit profile or overlay path, else ``MEMORY_ES_PROFILE``, else the shipped one."""
    if isinstance(profile, MemoryProfile):
        return profile
    if profile is None:
        profile = os.environ.get(PROFILE_ENV) or None
    return load_profile(profile)


__all__ = [
    "PROFILE_ENV",
    "AlignmentSettings",
    "Bm25",
    "DecaySettings",
    "DecayTauDays",
    "FormationProfile",
    "L1Settings",
    "LifecycleProfile",
    "LifecycleWeights",
    "MemoryProfile",
    "RankingWeights",
    "RetrievalProfile",
    "TraceProfile",
    "UsageDeltas",
    "load_profile",
    "merge",
    "resolve_profile",
    "shipped_document",
    "shipped_module_text",
]
