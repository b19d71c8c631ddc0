"""The memory profile as a YAML document, read without validating it.

``memory_es/profiles`` validates the document with pydantic; this module reads and
merges YAML only, and imports even that when asked, so the composition root can decide
what it must before any command runs without importing pydantic or yaml: a short
command such as ``memory-es session say`` never reads the profile at all.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from memory_es.errors import UsageError

if TYPE_CHECKING:
    import yaml

PROFILE_ENV = "MEMORY_ES_PROFILE"

# ``retrieval.semantic_enabled`` in the shipped profiles.yaml (the vector arm is opt-in),
# which ``memory_es.open`` needs before anything else of the profile: with it off, the
# shipped profile is validated on first use, not at open. tests/test_cli_startup.py
# holds this equal to the file.
SHIPPED_SEMANTIC_ENABLED = False

# The shipped profile as validated (``MemoryProfile().model_dump()``, which profiles.yaml
# holds equal), as plain data: the retriever of a store opened with no overlay reads its
# knobs from :func:`shipped_profile`, so ``memory-es recall`` imports neither pydantic
# nor yaml (~95 ms of CPU, a third of the command: issue 18). ``Memory.profile`` is
# still the validated model, built on first use. tests/test_profiles.py holds this equal,
# value and type, to the validated shipped profile.
SHIPPED_PROFILE: dict[str, Any] = {
    "schema_version": 1,
    "retrieval": {
        "semantic_enabled": False,
        "embedder": "hashed",
        "reciprocal_rank_fusion_k": 60,
        "durable_item_share": 0.25,
        "per_subject_cap": 2,
        "per_source_cap": 1,
        "time_decay_enabled": True,
        "quality_reorder_enabled": False,
        "quality_freshness_alpha": 1.0,
        "quality_freshness_half_life_days": 30.0,
        "ranking_weights": {
            "match": 1.0,
            "confidence": 0.2,
            "reinforce": 0.15,
            "authority": 0.1,
            "scope": 0.1,
            "utility": 0.05,
            "dated": 0.3,
        },
        "lifecycle_weights": {"active": 1.0, "provisional": 0.8},
        "decay_tau_days": {
            "fact": 90.0,
            "preference": 365.0,
            "relationship": 730.0,
            "user_model_attr": 365.0,
            "procedure_pointer": 180.0,
        },
        "stale_penalty": 0.3,
        "near_duplicate_penalty": 0.2,
        "near_duplicate_jaccard": 0.8,
        "bm25": {"k1": 1.2, "b": 0.75},
        "usage": {"cited_utility_delta": 0.1, "uncited_utility_delta": 0.02},
    },
    "formation": {
        "scheduled_enabled": True,
        "scheduled_interval_seconds": 86400,
        "residue_enabled": True,
        "extractor": "clauses",
        "decay": {"floor_confidence": 0.2, "step": 0.1, "max_per_sweep": 500},
    },
    "context": {
        "snapshot_max_items": 12,
        "snapshot_max_tokens": 600,
        "recall_max_items": 10,
        "recall_max_tokens": 800,
        "window_tokens": 8192,
    },
    "trace": {"enabled": True, "operator_retention_days": 30},
    "lifecycle": {
        "l1": {"enabled": False, "importance_floor": 0, "retention_days": 90, "max_per_sweep": 500},
        "alignment": {"enabled": False, "max_candidates": 8, "min_similarity": 0.5},
    },
}


class ProfileView:
    """A profile's plain data read as the validated model reads: ``view.retrieval.bm25.k1``;
    read-only. What the recall stack reads of a profile is attributes only."""

    __slots__ = ("_values",)

    def __init__(self, values: Mapping[str, Any]) -> None:
        nested = {k: ProfileView(v) if isinstance(v, Mapping) else v for k, v in values.items()}
        object.__setattr__(self, "_values", nested)

    def __getattr__(self, name: str) -> Any:
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a profile is read-only: cannot set {name}")

    def as_dict(self) -> dict[str, Any]:
        return {
            k: v.as_dict() if isinstance(v, ProfileView) else v for k, v in self._values.items()
        }

    def __repr__(self) -> str:
        return f"ProfileView({self.as_dict()!r})"


_SHIPPED_VIEW: list[ProfileView] = []


def shipped_profile() -> ProfileView:
    """The shipped profile's knobs (:data:`SHIPPED_PROFILE`), one view per process."""
    if not _SHIPPED_VIEW:
        _SHIPPED_VIEW.append(ProfileView(SHIPPED_PROFILE))
    return _SHIPPED_VIEW[0]


def yaml_loader() -> type[yaml.SafeLoader]:
    """libyaml's safe loader when it is built in, the pure-Python one otherwise."""
    import yaml

    loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return loader


def shipped_document() -> dict[str, Any]:
    """``memory_es/profiles/profiles.yaml``: the defaults (a test holds it equal to the
    validated ``MemoryProfile()``)."""
    from importlib import resources

    import yaml

    shipped = resources.files("memory_es").joinpath("profiles").joinpath("profiles.yaml")
    document = yaml.load(shipped.read_text(), Loader=yaml_loader())
    if not isinstance(document, dict):
        raise UsageError("the shipped profiles.yaml is not a mapping")
    return document


def merge(base: dict[str, Any], overlay: dict[str, Any]) -> dict[str, Any]:
    """Overlay wins key by key; mappings merge, everything else replaces."""
    out = dict(base)
    for key, value in overlay.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out
