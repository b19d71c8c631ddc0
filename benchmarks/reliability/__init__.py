"""The reliability suite (docs/reliability.md): ``python -m memory_es.benchmarks.reliability``.

Probe modules (``*_probes.py``) read ``quick()``: small counts, for the test that the
suite runs.
"""

from __future__ import annotations

import os

QUICK_ENV = "MEMORY_ES_RELIABILITY_QUICK"


def quick() -> bool:
    return os.environ.get(QUICK_ENV) == "1"
