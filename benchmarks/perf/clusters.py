"""Throwaway PostgreSQL clusters on loopback ports (Debian's postgresql-common tools):
what the ``shards`` bench phase and the placement tests run on, created and dropped by
them. Each cluster trusts loopback connections and holds one database, ``memory_es``."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
from dataclasses import dataclass
from pathlib import Path

from memory_es.stores import DEFAULT_DATABASE

CLUSTER_PREFIX = "memes_"


def _version() -> str | None:
    """The newest PostgreSQL major version installed (its server binaries)."""
    versions = [p.name for p in Path("/usr/lib/postgresql").glob("*") if (p / "bin").is_dir()]
    return max(versions, key=int) if versions else None


def unavailable() -> str | None:
    """Why clusters cannot be created here (None: they can)."""
    if shutil.which("pg_createcluster") is None:
        return "pg_createcluster is not installed (Debian's postgresql-common)"
    if _version() is None:
        return "no PostgreSQL server binaries under /usr/lib/postgresql"
    if os.geteuid() != 0 and not os.access("/var/lib/postgresql", os.W_OK):
        return "creating a cluster needs root or the postgres user"
    return None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass(frozen=True)
class Cluster:
    version: str
    name: str
    port: int

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{DEFAULT_DATABASE}"

    def stop(self) -> None:
        _run("pg_ctlcluster", self.version, self.name, "stop", "-m", "immediate")

    def start(self) -> None:
        _run("pg_ctlcluster", self.version, self.name, "start")

    def drop(self) -> None:
        _run("pg_dropcluster", "--stop", self.version, self.name, check=False)


def _run(*command: str, check: bool = True) -> None:
    done = subprocess.run(command, capture_output=True, check=False)
    if check and done.returncode != 0:
        tail = done.stderr.decode(errors="replace").strip().splitlines()[-3:]
        raise RuntimeError(f"{' '.join(command)} failed: {' | '.join(tail)}")


def create_cluster(label: str) -> Cluster:
    """A new cluster, started, on a free loopback port, with the memory_es database."""
    import psycopg

    version = _version()
    if version is None:
        raise RuntimeError("no PostgreSQL server binaries under /usr/lib/postgresql")
    port = free_port()
    cluster = Cluster(version, f"{CLUSTER_PREFIX}{label}_{os.getpid()}_{port}", port)
    try:
        _run(
            "pg_createcluster",
            version,
            cluster.name,
            "-p",
            str(port),
            "--start",
            "-o",
            "shared_buffers=64MB",
            "-o",
            "max_connections=80",
            "--",
            "--auth-host=trust",
            "--auth-local=trust",
        )
        with psycopg.connect(
            host="127.0.0.1", port=port, user="postgres", dbname="postgres", autocommit=True
        ) as db:
            db.execute(f"CREATE DATABASE {DEFAULT_DATABASE}")
    except BaseException:
        cluster.drop()
        raise
    return cluster
