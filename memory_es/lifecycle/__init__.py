"""The lifecycle of a belief after formation (docs/lifecycle.md).

Pure decisions over read-model rows and the principal aggregate, each producing events
on the aggregate; the read models follow those events (projections/projector.py):

- ``decay``: the decay sweep over idle inferences, retirement below the floor;
- ``usage``: usage feedback from the short ids a run's final message cites;
- ``conflicts``: the conflicts awaiting confirmation, and settling one;
- ``l1``: reversible deactivation (``auto_decay:v1``, ``session_end``), pins, reactivation;
- ``importance``: the RFC's deterministic importance seed;
- ``stats``: the tracked lifecycle metrics, from the log and the trace store.
"""
