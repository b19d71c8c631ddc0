"""Source evidence declarations, as values, and the SourceRegistry aggregate.

A source is *declared* — by API registration (``memory.sources.declare``), the CLI
(``memory-es sources declare``) or a declarations file read at open (``--sources FILE``,
memory_es/evidence/config.py), never inferred from content, a source reference or a
model — with an authority, a verification state and a declaration version.
Re-declaring a source needs a higher version, so every version is reconstructible from
the log. A session's turns are written under the declaration in force when it was bound to a source
(``memory.sources.bind``) or when a turn was recorded through it (``memory.sources.say``),
snapshotted in that binding's event; each belief a close forms from such evidence gets
its own snapshot (``BeliefSourcesSnapshotted``, in the close's save), so a rebuild uses
the historical declaration, not the registry's current one, and a re-declaration
affects only beliefs written after it. A session bound to nothing —
``session say``, MCP ``record_turn``, the remember tool — is the built-in ``session``
source: user_asserted by declaration. A name never declared resolves to
:data:`UNDECLARED` (unknown / untrusted), which keeps the stage-1 quality reorder off.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import Aggregate, event

from memory_es.errors import InvalidInput


class SourceAuthority(StrEnum):
    """Ordered weakest first: ``rank`` is the position here."""

    UNTRUSTED = "untrusted"
    USER_ASSERTED = "user_asserted"
    REPOSITORY_ATTESTED = "repository_attested"
    SYSTEM_ATTESTED = "system_attested"

    @property
    def rank(self) -> int:
        return list(SourceAuthority).index(self)


class Verification(StrEnum):
    UNKNOWN = "unknown"
    VERIFIED = "verified"
    NOT_VERIFIED = "not_verified"


@dataclass(frozen=True)
class EvidenceDeclaration:
    source: str
    authority: SourceAuthority
    verification: Verification
    version: int  # 0: no declaration (absent or never registered)

    @property
    def valid(self) -> bool:
        return bool(self.source) and self.version >= 1

    def as_dict(self) -> dict[str, object]:
        return {
            "source": self.source,
            "authority": self.authority.value,
            "verification": self.verification.value,
            "version": self.version,
        }

    @classmethod
    def from_dict(cls, stored: dict[str, object]) -> EvidenceDeclaration:
        return cls(
            source=str(stored["source"]),
            authority=SourceAuthority(str(stored["authority"])),
            verification=Verification(str(stored["verification"])),
            version=int(str(stored["version"])),
        )


UNDECLARED = EvidenceDeclaration("", SourceAuthority.UNTRUSTED, Verification.UNKNOWN, 0)
SESSION_SOURCE = "session"
# What a turn said in a session is: the user's assertion, by declaration (not by reading it).
SESSION_DECLARATION = EvidenceDeclaration(
    SESSION_SOURCE, SourceAuthority.USER_ASSERTED, Verification.UNKNOWN, 1
)
_NAMESPACE = uuid5(NAMESPACE_URL, "memory-es:source-registry")


def weakest(declarations: list[EvidenceDeclaration]) -> EvidenceDeclaration:
    """The declaration a belief formed from several turns is written under: its weakest
    evidence (lowest authority; an invalid one wins outright). Ties keep the first."""
    if not declarations:
        return UNDECLARED
    invalid = [d for d in declarations if not d.valid]
    if invalid:
        return invalid[0]
    return min(declarations, key=lambda d: d.authority.rank)


def stored_declaration(stored: object) -> EvidenceDeclaration:
    """A snapshot read back from the log; one that does not validate is UNDECLARED
    (unknown / untrusted), never an error and never a guess."""
    if not isinstance(stored, dict):
        return UNDECLARED
    try:
        return EvidenceDeclaration.from_dict(stored)
    except (KeyError, ValueError, TypeError):
        return UNDECLARED


def registry_id(tenant: str) -> UUID:
    return uuid5(_NAMESPACE, tenant)


def clean_source_name(name: str) -> str:
    cleaned = " ".join((name or "").split()).casefold()
    if not cleaned:
        raise InvalidInput("a source needs a non-empty name")
    if cleaned == SESSION_SOURCE:
        raise InvalidInput(f"source {SESSION_SOURCE!r} is built in (user_asserted)")
    return cleaned


class SourceRegistry(Aggregate):
    """One tenant's declared sources: each name's declarations, every version kept."""

    class Created(Aggregate.Created):
        tenant: str

    @staticmethod
    def create_id(tenant: str) -> UUID:
        return registry_id(tenant)

    @event(Created)
    def __init__(self, tenant: str) -> None:
        self.tenant = tenant
        self.declarations: dict[str, list[dict[str, object]]] = {}

    class SourceDeclared(Aggregate.Event):
        source: str
        authority: str
        verification: str
        version: int
        at: str

    @event(SourceDeclared)
    def _declared(
        self, source: str, authority: str, verification: str, version: int, at: str
    ) -> None:
        self.declarations.setdefault(source, []).append(
            {
                "source": source,
                "authority": authority,
                "verification": verification,
                "version": version,
            }
        )

    def declare(self, declaration: EvidenceDeclaration, *, at: str) -> None:
        current = self.current(declaration.source)
        if declaration.version <= current.version:
            raise InvalidInput(
                f"source {declaration.source!r} is declared at version {current.version}:"
                " a new declaration needs a higher version"
            )
        self._declared(
            source=declaration.source,
            authority=declaration.authority.value,
            verification=declaration.verification.value,
            version=declaration.version,
            at=at,
        )

    def current(self, source: str) -> EvidenceDeclaration:
        history = self.declarations.get(source)
        return EvidenceDeclaration.from_dict(history[-1]) if history else UNDECLARED
