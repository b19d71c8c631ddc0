"""The memory profile as a YAML document, read without validating it.

``memory_es/profiles`` validates the document with pydantic; this module only reads and
merges YAML, so the composition root can learn what it needs before any command runs
(whether the shipped profile turns the vector arm on) without importing pydantic: a
short command such as ``memory-es session say`` never reads the rest of the profile.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

import yaml

from memory_es.errors import UsageError

PROFILE_ENV = "MEMORY_ES_PROFILE"
# libyaml's safe loader when it is built in, the pure-Python one otherwise.
LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def shipped_document() -> dict[str, Any]:
    """``memory_es/profiles/profiles.yaml``: the defaults (a test holds it equal to the
    validated ``MemoryProfile()``)."""
    shipped = resources.files("memory_es").joinpath("profiles").joinpath("profiles.yaml")
    document = yaml.load(shipped.read_text(), Loader=LOADER)
    if not isinstance(document, dict):
        raise UsageError("the shipped profiles.yaml is not a mapping")
    return document


def shipped_semantic_enabled() -> bool:
    """Whether the shipped profile turns the vector arm on (it is off: opt-in)."""
    retrieval = shipped_document().get("retrieval")
    return isinstance(retrieval, dict) and bool(retrieval.get("semantic_enabled"))


def merge(base: dict[str, Any], overlay: dict[str, Any]) -> dict[str, Any]:
    """Overlay wins key by key; mappings merge, everything else replaces."""
    out = dict(base)
    for key, value in overlay.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out
