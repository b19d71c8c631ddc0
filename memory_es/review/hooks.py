"""Where review meets the write path: alignment after a close formed beliefs (opt-in,
``lifecycle.alignment.enabled``). Its own transaction after the close's: a crash between
the two loses nothing, because ``maintenance run`` aligns every belief past the
ledger's watermark (bulk ingest defers to that pass)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memory_es.review.commands import Align

if TYPE_CHECKING:
    from memory_es.formation.consolidation import ConsolidationResult
    from memory_es.services.messagebus import CommandBus


def align_formed(services: CommandBus, result: ConsolidationResult) -> None:
    if not services.adapters.profile.lifecycle.alignment.enabled:
        return
    first = services.adapters.index.get(result.formed[0])
    if first is not None:
        services.handle(Align(first.principal, tuple(result.formed)))
