"""Policy versions: recorded on every event and read model they shape.

Bump a version in the change that alters the semantics it names; a read model built
under another version is detected at start-up.
"""

FORMATION_POLICY_VERSION = 10
RETRIEVAL_POLICY_VERSION = 6
PROJECTION_SCHEMA_VERSION = 10
# The provider-assisted extractor's own version (its prompt and its validation rules),
# recorded in its name beside the formation policy: memory_es/formation/provider_extractor.py
PROVIDER_EXTRACTION_VERSION = 1


def formation_policy() -> str:
    return f"formation@{FORMATION_POLICY_VERSION}"


def retrieval_policy() -> str:
    return f"retrieval@{RETRIEVAL_POLICY_VERSION}"


def provider_extraction_policy() -> str:
    return f"provider-extraction@{PROVIDER_EXTRACTION_VERSION}"


def formation_key(extractor: str, policy: str | None = None) -> str:
    """The formation policy a session is consolidated under: the version and the
    extractor's identity (``formation@4/clauses@4+residue``). A profile that turns on
    another extractor is another policy, as is a version bump; ``memory rederive``
    re-examines every session consolidated under another key (docs/operations.md)."""
    return f"{policy or formation_policy()}/{extractor}"
