"""Run one benchmark phase in this process: ``python -m memory_es.benchmarks.perf.phase NAME``.

Reads ``{"store": ..., "cfg": ...}`` as JSON on stdin and writes the phase's figures,
with this process's peak resident memory, as one JSON object on stdout.
"""

from __future__ import annotations

import resource
import sys

import orjson

from memory_es.benchmarks.perf.phases import PHASES


def main() -> int:
    name = sys.argv[1]
    request = orjson.loads(sys.stdin.buffer.read())
    result = PHASES[name](request["store"], request["cfg"])
    # ru_maxrss is in KiB on Linux.
    result["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    sys.stdout.buffer.write(orjson.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
