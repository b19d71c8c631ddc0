"""Policy versions: recorded on every event and read model they shape.

Bump a version in the change that alters the semantics it names; a read model built
under another version is detected at start-up.
"""

FORMATION_POLICY_VERSION = 5
RETRIEVAL_POLICY_VERSION = 3
PROJECTION_SCHEMA_VERSION = 6
# The provider-assisted extractor's own version (its prompt and its validation rules),
# recorded in its name beside the formation policy: memory_es/formation/provider_extractor.py
PROVIDER_EXTRACTION_VERSION = 1


def formation_policy() -> str:
    return f"formation@{FORMATION_POLICY_VERSION}"


def retrieval_policy() -> str:
    return f"retrieval@{RETRIEVAL_POLICY_VERSION}"


def provider_extraction_policy() -> str:
    return f"provider-extraction@{PROVIDER_EXTRACTION_VERSION}"
