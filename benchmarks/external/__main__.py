"""``python -m benchmarks.external ...``: see :mod:`benchmarks.external`."""

import sys

from benchmarks.external import main

sys.exit(main())
