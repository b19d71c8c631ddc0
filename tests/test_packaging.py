"""One import name (light start-up: memory_es/startup.py): the design card's folders stay where
they are and install
inside ``memory_es``; the wheel adds exactly one top-level name."""

from __future__ import annotations

import tomllib
from pathlib import Path

from setuptools import find_packages

ROOT = Path(__file__).resolve().parents[1]


def test_the_design_cards_folders_are_the_packages_folders() -> None:
    for name in ("projections", "migrations", "benchmarks"):
        link = ROOT / "memory_es" / name
        assert link.is_symlink() and link.resolve() == (ROOT / name).resolve()


def test_the_wheel_holds_one_top_level_name() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    include = config["tool"]["setuptools"]["packages"]["find"]["include"]
    packages = find_packages(str(ROOT), include=include)
    assert {p.split(".")[0] for p in packages} == {"memory_es"}
    assert {"memory_es.projections", "memory_es.migrations", "memory_es.benchmarks"} <= set(
        packages
    )
    data = config["tool"]["setuptools"]["package-data"]
    assert {k.split(".")[0] for k in data} == {"memory_es"}
