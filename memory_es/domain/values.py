"""Value types of the memory domain: plain, immutable, free of I/O."""

from __future__ import annotations

import json
import re
import unicodedata
from enum import IntEnum, StrEnum
from uuid import UUID, uuid5

from memory_es.errors import InvalidInput

DEFAULT_TENANT = "default"
GENERAL_SCOPE = "general"

# Namespace for deterministic principal aggregate ids (uuid5 of tenant/principal).
PRINCIPAL_NAMESPACE = UUID("6f1c2a34-9b1e-5c1d-8a57-2f0c4e9d7a10")


class BeliefType(StrEnum):
    FACT = "fact"
    PREFERENCE = "preference"
    RELATIONSHIP = "relationship"
    USER_MODEL_ATTR = "user_model_attr"
    PROCEDURE_POINTER = "procedure_pointer"


class Authority(IntEnum):
    """Who vouches for a belief; a higher value never loses to a lower one."""

    INFERRED = 1
    AFFIRMED = 2
    USER = 3


class Status(StrEnum):
    ACTIVE = "active"
    PROVISIONAL = "provisional"
    SUPERSEDED = "superseded"
    RETIRED = "retired"
    REJECTED = "rejected"
    INACTIVE = "inactive"


LIVE_STATUSES: frozenset[Status] = frozenset({Status.ACTIVE, Status.PROVISIONAL})
# The reason of a retirement by the decay sweep: forgetting, which new evidence revives
# (a re-derivation's retirement, ``rederived:<version>``, is not).
DECAY_RETIREMENT = "decay"


class Role(StrEnum):
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"  # the remember tool's statement, recorded at memory trust


# Beliefs about the person travel with them across projects; project decisions stay local.
PORTABLE_TYPES: frozenset[BeliefType] = frozenset(
    {BeliefType.PREFERENCE, BeliefType.USER_MODEL_ATTR, BeliefType.RELATIONSHIP}
)


def normalize_name(name: str) -> str:
    """A tenant's, principal's or project's name as every path keys it: NFC, no
    surrounding white space (the edges refuse what is then empty or holds a control
    character: memory_es/domain/inputs.py)."""
    return unicodedata.normalize("NFC", name).strip()


def principal_identity(*, tenant: str, principal: str) -> str:
    """The one key of a (tenant, principal): the read model's ``principal`` column and,
    through uuid5, the principal aggregate's id.

    ``tenant/principal`` while neither name holds a ``/`` (the encoding stores written
    before it used, so their principals keep their ids and their memory); otherwise ``/``
    followed by the JSON array ``[tenant, principal]``. JSON is injective, and a key of
    the second form holds at least two slashes where one of the first holds exactly one,
    so two different pairs never share a key: (``acme``, ``x/y``) and (``acme/x``, ``y``)
    are two principals."""
    tenant, principal = normalize_name(tenant), normalize_name(principal)
    if not principal:
        # Every path keys a principal here, so every read and write refuses an empty one
        # alike (the same words as memory_es/domain/inputs.py's clean_name).
        raise InvalidInput("a principal needs a non-empty name")
    if "/" not in tenant and "/" not in principal:
        return f"{tenant}/{principal}"
    return "/" + json.dumps([tenant, principal], ensure_ascii=False, separators=(",", ":"))


def split_principal_identity(key: str) -> tuple[str, str]:
    """(tenant, principal) from ``principal_identity``'s key."""
    if key.startswith("/"):
        tenant, principal = json.loads(key[1:])
        return str(tenant), str(principal)
    tenant, _, principal = key.partition("/")
    return tenant, principal


def principal_aggregate_id(*, tenant: str = DEFAULT_TENANT, principal: str) -> UUID:
    return uuid5(PRINCIPAL_NAMESPACE, principal_identity(tenant=tenant, principal=principal))


def legacy_principal_aggregate_id(*, tenant: str = DEFAULT_TENANT, principal: str) -> UUID | None:
    """The id the ambiguous ``tenant/principal`` encoding gave a pair with a ``/`` in a
    name (None when it is today's id): the repository reads a principal's memory from it
    when that aggregate was created for exactly this pair."""
    tenant, principal = normalize_name(tenant), normalize_name(principal)
    if not principal:
        # Every path keys a principal here, so every read and write refuses an empty one
        # alike (the same words as memory_es/domain/inputs.py's clean_name).
        raise InvalidInput("a principal needs a non-empty name")
    if "/" not in tenant and "/" not in principal:
        return None
    return uuid5(PRINCIPAL_NAMESPACE, f"{tenant}/{principal}")


def short_id(belief_id: str) -> str:
    """The eight-hex form the renderer emits and a model cites: ``[m:xxxxxxxx]``."""
    return belief_id.replace("-", "")[:8]


# A short id as a person or a model copies it: [m:xxxxxxxx], m:xxxxxxxx or the eight hex
# digits (lower-cased first); group 1 is the short id.
SHORT_ID_REF = re.compile(r"^(?:\[?m:)?([0-9a-f]{8})\]?$")


def normalize_statement(text: str) -> str:
    """Case-folded, whitespace-collapsed, trailing punctuation stripped."""
    return " ".join(text.casefold().split()).rstrip(".!?;:,… ")


# A belief's subject key may name several subjects, joined by this separator: a decision
# to switch from one tool to another is about both, so it supersedes a decision on either.
SUBJECT_KEY_SEPARATOR = "|"


def subject_keys(key: str) -> frozenset[str]:
    return frozenset(part for part in key.split(SUBJECT_KEY_SEPARATOR) if part)
