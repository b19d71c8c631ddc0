"""The shipped profile as validated, as plain data: generated, do not edit.

Its one source is ``memory_es/profiles/profiles.yaml``; after changing that file run
``python -m memory_es.profiles`` to write this one again (tests/test_profiles.py fails
while the two differ). A store opened with no overlay reads its knobs from here through
``profile_document.shipped_profile``, so a command such as ``memory-es recall`` imports
neither pydantic nor yaml.
"""

from __future__ import annotations

from typing import Any

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
        "lifecycle_weights": {
            "active": 1.0,
            "provisional": 0.8,
        },
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
        "bm25": {
            "k1": 1.2,
            "b": 0.75,
        },
        "usage": {
            "cited_utility_delta": 0.1,
            "uncited_utility_delta": 0.02,
        },
    },
    "formation": {
        "scheduled_enabled": True,
        "scheduled_interval_seconds": 86400,
        "residue_enabled": True,
        "extractor": "clauses",
        "decay": {
            "floor_confidence": 0.2,
            "step": 0.1,
            "max_per_sweep": 500,
        },
    },
    "context": {
        "snapshot_max_items": 12,
        "snapshot_max_tokens": 600,
        "recall_max_items": 10,
        "recall_max_tokens": 800,
        "window_tokens": 8192,
    },
    "trace": {
        "enabled": True,
        "operator_retention_days": 30,
    },
    "lifecycle": {
        "l1": {
            "enabled": False,
            "importance_floor": 0,
            "retention_days": 90,
            "max_per_sweep": 500,
        },
        "alignment": {
            "enabled": False,
            "max_candidates": 8,
            "min_similarity": 0.5,
        },
    },
}
