"""Start-up lightness, the one rule: what each light command may not import.

An agent's hook runs ``memory-es session say`` on every turn and ``memory-es recall``
before a model call; a human runs ``memory-es --help``. Each of them pays for every
module it imports, so the modules below are imported only where they are used (a
function-level import, or a module read on first use). That is the one reason for the
function-level imports across memory_es/: an import inside a function names the rule
(``# light start-up: memory_es/startup.py``) rather than an explanation of its own.

tests/test_cli_startup.py runs each command in a fresh interpreter and fails when it
loads a module named here; a module or package named covers its submodules.
"""

from __future__ import annotations

# Building the parser and ``--help``: no store, no recall stack, no profile.
PARSER_MUST_NOT_IMPORT: tuple[str, ...] = (
    "numpy",
    "pydantic",
    "yaml",
    "eventsourcing",
    "psycopg",
    "memory_es.app",
    "memory_es.bootstrap",
    "memory_es.retrieval.recall",
    "memory_es.profiles",
    "projections",
)

# ``session say``: it opens the store, migrates and catches the read model up, records
# the turn and projects it, and none of that needs the modules below.
SAY_MUST_NOT_IMPORT: tuple[str, ...] = (
    "numpy",
    "pydantic",
    "yaml",
    "psycopg",
    "memory_es.profiles",
    "memory_es.retrieval",
    "memory_es.formation.extractor",
    "memory_es.formation.consolidation",
    "memory_es.formation.patterns",
    "memory_es.context",
    "memory_es.lifecycle.handlers",
    "memory_es.lifecycle.sweeps",
    "memory_es.services.ledger",
    "memory_es.services.composites",
    # The principal's aggregate (~40 event classes): a turn touches only its session
    # (the projector and the snapshot intervals name the principal's events by topic).
    "memory_es.domain.principal",
    # The other commands and their results (services/formation_commands.py,
    # formation_results.py, read as commands.<Name> on first use: 2-3 ms of CPU a
    # turn), and the recall traces' store (Memory.traces, made on first use).
    "memory_es.services.formation_commands",
    "memory_es.services.formation_results",
    "memory_es.projections.traces",
    # The injection views decode entities with html.unescape, importing html (its
    # entity table) only for a text holding "&" (formation/hazards/injection.py).
    "html",
    # The other commands' modules: a command builds only its own parser (cli/COMMANDS).
    "memory_es.cli.memory_cmds",
    "memory_es.cli.recall_cmds",
    "memory_es.cli.eval_cmds",
    "memory_es.cli.bench_cmds",
)

# ``recall`` needs the recall stack (numpy for the ranking's arrays), but not every
# language's stemmer (the tokenizer runs snowballstemmer's English stemmer alone), nor,
# with no profile overlay, pydantic or yaml: the retriever reads the shipped knobs as
# plain data (memory_es/shipped_profile.py).
RECALL_MUST_NOT_IMPORT: tuple[str, ...] = (
    "snowballstemmer",
    "pydantic",
    "pydantic_core",
    "yaml",
    "memory_es.profiles",
)


def breaks_rule(loaded: set[str], must_not: tuple[str, ...]) -> list[str]:
    """The modules of ``loaded`` that ``must_not`` names (a name covers its submodules)."""
    return sorted(
        m for m in loaded if any(m == name or m.startswith(name + ".") for name in must_not)
    )
