"""The memory profile as a YAML document, read without validating it.

``memory_es/profiles`` validates the document with pydantic; this module reads and
merges YAML only, and imports even that when asked, so the composition root can decide
what it must before any command runs without importing pydantic or yaml: a short
command such as ``memory-es session say`` never reads the profile at all.
"""

from __future__ import annotations

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
