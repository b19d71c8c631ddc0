import sys

from memory_es.cli import main

sys.exit(main())
