"""Read models that follow the memory_es log, rebuildable from any store position."""
