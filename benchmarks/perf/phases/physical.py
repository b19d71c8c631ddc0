"""The physical reference: raw SQL inserts and scans of rows shaped like our events."""

from __future__ import annotations

from typing import Any

from memory_es.benchmarks.perf import physical
from memory_es.benchmarks.perf.phases.common import _samples
from memory_es.stores import parse_store_url


def phase_physical(store: dict[str, Any], cfg: dict[str, Any]) -> dict[str, Any]:
    rows = physical.sample_rows(_samples(), cfg["physical_rows"])
    if store["kind"] == "sqlite":
        return physical.sqlite_reference(store["path"], rows, cfg["per_tx_rows"])
    spec = parse_store_url(store["url"])
    return physical.postgres_reference(spec.pg_connect, spec.pg_schema, rows, cfg["per_tx_rows"])
