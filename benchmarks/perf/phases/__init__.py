"""The benchmark phases. Each runs in its own process
(``python -m memory_es.benchmarks.perf.phase``) and returns a flat dict of figures; the
suite adds the peak RSS and the ratios.

Store building at scale uses two paths, both documented in docs/performance.md:

- ``memory.ingest`` (the real commands, batched) for everything that is formation;
- ``build_beliefs`` for principals holding 1k-100k live beliefs: the events the formation
  service writes for a session whose every proposal resolves NEW (``Session.Opened``,
  ``TurnRecorded``, ``Closed``; ``PrincipalMemory.BeliefFormed`` x n,
  ``ConsolidationRecorded``), built with the aggregates' own command methods but without
  running the resolver against every existing belief (which is formation's O(n) per
  proposal, see the report) and with one aggregate snapshot at the end instead of one
  every 200 events. The log and read model are the ones formation would produce.

One module a phase; ``common`` holds what they share.
"""

from __future__ import annotations

from memory_es.benchmarks.perf.phases.append import phase_append
from memory_es.benchmarks.perf.phases.cli import phase_cli
from memory_es.benchmarks.perf.phases.commands import phase_commands
from memory_es.benchmarks.perf.phases.common import _open, percentiles, settle
from memory_es.benchmarks.perf.phases.formation import phase_formation
from memory_es.benchmarks.perf.phases.physical import phase_physical
from memory_es.benchmarks.perf.phases.rebuild import phase_rebuild
from memory_es.benchmarks.perf.phases.recall import build_beliefs, phase_recall

__all__ = ["PHASES", "_open", "build_beliefs", "percentiles", "settle"]

PHASES = {
    "physical": phase_physical,
    "append": phase_append,
    "formation": phase_formation,
    "recall": phase_recall,
    "rebuild": phase_rebuild,
    "commands": phase_commands,
    "cli": phase_cli,
}
