"""Source declarations by configuration: a declarations file (YAML or JSON) read when a
store opens (``memory_es.open(url, sources=PATH)``, ``memory-es --sources PATH``, env
``MEMORY_ES_SOURCES``). Trusted registration configuration, as the RFC asks: what a
source is comes from here, the CLI or the API, never from content or a model.

The file::

    tenant: default          # optional
    sources:
      crawler:      {authority: untrusted, verification: unknown, version: 1}
      repo-docs:    {authority: repository_attested, verification: verified, version: 2}

Applying it is idempotent: a source already declared at the file's version with the
same declaration is left alone (nothing written); a higher version in the file is a
re-declaration (affecting only beliefs written after it); the same version with a
different declaration is refused (InvalidInput: bump the version); a registry already
past the file's version keeps its newer declaration (reported as ``kept``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memory_es.domain.values import DEFAULT_TENANT
from memory_es.errors import InvalidInput
from memory_es.evidence.declarations import (
    EvidenceDeclaration,
    SourceAuthority,
    Verification,
    clean_source_name,
)

if TYPE_CHECKING:
    from memory_es.app import Memory

SOURCES_ENV = "MEMORY_ES_SOURCES"
_KEYS = frozenset({"authority", "verification", "version"})


@dataclass(frozen=True)
class Applied:
    declaration: EvidenceDeclaration
    action: str  # declared | unchanged | kept


def read_declarations(path: str | Path) -> tuple[str, list[EvidenceDeclaration]]:
    """The file's tenant and declarations, validated whole before anything is written."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as error:
        raise InvalidInput(f"cannot read source declarations {file}: {error.strerror}") from None
    try:
        if file.suffix.lower() == ".json":
            document: Any = json.loads(text)
        else:
            import yaml

            document = yaml.safe_load(text)
    except ValueError as error:  # json and yaml errors both
        raise InvalidInput(f"source declarations {file}: not valid: {error}") from None
    if not isinstance(document, dict) or not isinstance(document.get("sources"), dict):
        raise InvalidInput(f"source declarations {file}: needs a `sources:` mapping")
    tenant = str(document.get("tenant") or DEFAULT_TENANT)
    found: list[EvidenceDeclaration] = []
    for name, fields in document["sources"].items():
        where = f"source declarations {file}: source {name!r}"
        if not isinstance(fields, dict) or not set(fields) <= _KEYS or "authority" not in fields:
            raise InvalidInput(f"{where}: give authority, verification and version only")
        version = fields.get("version", 1)
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            raise InvalidInput(f"{where}: version must be a whole number >= 1")
        try:
            authority = SourceAuthority(str(fields["authority"]))
            verification = Verification(str(fields.get("verification", "unknown")))
        except ValueError as error:
            raise InvalidInput(f"{where}: {error}") from None
        found.append(
            EvidenceDeclaration(clean_source_name(str(name)), authority, verification, version)
        )
    return tenant, found


def apply_declarations(memory: Memory, path: str | Path) -> list[Applied]:
    tenant, declarations = read_declarations(path)
    sources = memory.sources
    applied: list[Applied] = []
    for wanted in declarations:
        current = sources.declaration(wanted.source, tenant=tenant)
        if current.version > wanted.version:
            applied.append(Applied(current, "kept"))
        elif current.version == wanted.version:
            if current != wanted:
                raise InvalidInput(
                    f"source {wanted.source!r} is declared at version {current.version}"
                    " otherwise: a changed declaration needs a higher version"
                )
            applied.append(Applied(current, "unchanged"))
        else:
            declared = sources.declare(
                wanted.source,
                authority=wanted.authority,
                verification=wanted.verification,
                version=wanted.version,
                tenant=tenant,
            )
            applied.append(Applied(declared, "declared"))
    return applied
