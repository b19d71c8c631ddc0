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
from memory_es.shipped_profile import SHIPPED_PROFILE

if TYPE_CHECKING:
    import yaml

PROFILE_ENV = "MEMORY_ES_PROFILE"

# The shipped profile's knobs as plain data, generated from profiles.yaml (the one
# source; memory_es/shipped_profile.py says how). ``memory_es.open`` reads the vector
# arm's switch from it before anything else of the profile: with the arm off, the
# shipped profile is validated on first use, not at open.
SHIPPED_SEMANTIC_ENABLED: bool = SHIPPED_PROFILE["retrieval"]["semantic_enabled"]


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
    """``memory_es/profiles/profiles.yaml``: the shipped values, every knob named."""
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
