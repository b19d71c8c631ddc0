"""The physical reference: raw SQL on rows shaped like our stored events.

The same table shape as ``eventsourcing``'s recorders (originator id, version, topic,
state bytes; the SQLite rowid / PostgreSQL bigserial as the notification id), the same
connection settings (WAL on SQLite), state bytes taken from real memory_es events. What
the library does on top of this is the overhead the ratios report.
"""

from __future__ import annotations

import json
import sqlite3
import time
import uuid
from collections.abc import Sequence
from typing import Any

import orjson

Row = tuple[str, int, str, bytes]


def sample_rows(samples: Sequence[tuple[str, bytes]], n: int) -> list[Row]:
    """n rows cycling over real (topic, state) samples, 50 events per originator."""
    rows: list[Row] = []
    originator = uuid.uuid4().hex
    for i in range(n):
        if i % 50 == 0:
            originator = uuid.uuid4().hex
        topic, state = samples[i % len(samples)]
        rows.append((originator, i % 50 + 1, topic, state))
    return rows


def _rate(n: int, seconds: float) -> float:
    return n / seconds if seconds > 0 else float("inf")


# -- SQLite ------------------------------------------------------------------------------


def sqlite_reference(path: str, rows: list[Row], per_tx_rows: int) -> dict[str, Any]:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute(
        "CREATE TABLE stored_events (originator_id TEXT, originator_version INTEGER,"
        " topic TEXT, state BLOB, PRIMARY KEY (originator_id, originator_version))"
    )
    insert = "INSERT INTO stored_events VALUES (?, ?, ?, ?)"
    t0 = time.perf_counter()
    conn.execute("BEGIN")
    conn.executemany(insert, rows)
    conn.execute("COMMIT")
    batched = time.perf_counter() - t0

    single = [(r[0] + "x", *r[1:]) for r in rows[:per_tx_rows]]
    t0 = time.perf_counter()
    for row in single:
        conn.execute("BEGIN")
        conn.execute(insert, row)
        conn.execute("COMMIT")
    per_tx = time.perf_counter() - t0

    scanned, scan_s, scan_json_s = _scan_sqlite(conn)
    conn.close()
    return {
        "insert_batched_rows_per_s": _rate(len(rows), batched),
        "insert_per_tx_rows_per_s": _rate(len(single), per_tx),
        "scan_decode_rows_per_s": _rate(scanned, scan_s),
        "scan_decode_json_module_rows_per_s": _rate(scanned, scan_json_s),
        "rows": len(rows),
    }


def _scan_sqlite(
    conn: sqlite3.Connection, table: str = "stored_events"
) -> tuple[int, float, float]:
    statement = f"SELECT rowid, originator_id, originator_version, topic, state FROM {table}"
    t0 = time.perf_counter()
    n = 0
    for row in conn.execute(statement + " ORDER BY rowid"):
        orjson.loads(row[4])
        n += 1
    orjson_s = time.perf_counter() - t0
    if n == 0:
        return 0, orjson_s, orjson_s
    t0 = time.perf_counter()
    for row in conn.execute(statement + " ORDER BY rowid"):
        json.loads(row[4])
    json_s = time.perf_counter() - t0
    return n, orjson_s, json_s


def sqlite_scan_rate(path: str, table: str) -> tuple[int, float]:
    """(rows, rows/s) of a raw scan with decoding of a memory_es SQLite log."""
    conn = sqlite3.connect(path)
    n, seconds, _ = _scan_sqlite(conn, table)
    conn.close()
    return n, _rate(n, seconds)


# -- PostgreSQL ---------------------------------------------------------------------------


def postgres_reference(
    connect: dict[str, Any], schema: str, rows: list[Row], per_tx_rows: int
) -> dict[str, Any]:
    import psycopg

    with psycopg.connect(**connect, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')
        conn.execute(f'SET search_path TO "{schema}"')
        conn.execute(
            "CREATE TABLE stored_events (originator_id uuid NOT NULL, originator_version bigint"
            " NOT NULL, topic text, state bytea, notification_id bigserial,"
            " PRIMARY KEY (originator_id, originator_version))"
        )
        conn.execute("CREATE UNIQUE INDEX ON stored_events (notification_id)")
        insert = (
            "INSERT INTO stored_events (originator_id, originator_version, topic, state)"
            " VALUES (%s, %s, %s, %s)"
        )
        t0 = time.perf_counter()
        with conn.transaction(), conn.cursor() as cursor:
            cursor.executemany(insert, rows)
        batched = time.perf_counter() - t0

        single = [(uuid.uuid4().hex, *r[1:]) for r in rows[:per_tx_rows]]
        t0 = time.perf_counter()
        for row in single:
            with conn.transaction():
                conn.execute(insert, row)
        per_tx = time.perf_counter() - t0
        _n, scan_rate = _scan_postgres(conn, "stored_events")
        conn.execute(f'DROP SCHEMA "{schema}" CASCADE')
    return {
        "insert_batched_rows_per_s": _rate(len(rows), batched),
        "insert_per_tx_rows_per_s": _rate(len(single), per_tx),
        "scan_decode_rows_per_s": scan_rate,
        "rows": len(rows),
    }


def _scan_postgres(conn: Any, table: str) -> tuple[int, float]:
    t0 = time.perf_counter()
    n = 0
    with conn.cursor(name="scan") if not conn.autocommit else conn.cursor() as cursor:
        cursor.execute(
            f"SELECT notification_id, originator_id, originator_version, topic, state FROM {table}"
            " ORDER BY notification_id"
        )
        while batch := cursor.fetchmany(5000):
            for row in batch:
                orjson.loads(row[4])
                n += 1
    return n, _rate(n, time.perf_counter() - t0)


def postgres_scan_rate(connect: dict[str, Any], schema: str, table: str) -> tuple[int, float]:
    import psycopg

    with psycopg.connect(**connect, autocommit=True) as conn:
        conn.execute(f'SET search_path TO "{schema}"')
        return _scan_postgres(conn, table)
