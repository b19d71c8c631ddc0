"""``python -m memory_es.benchmarks.external ...``: see :mod:`benchmarks.external`."""

import sys

from memory_es.benchmarks.external import main

sys.exit(main())
