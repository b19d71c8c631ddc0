"""Performance benchmarks: ``memory-es bench [--quick] [--json]``.

Every phase runs in its own subprocess (so each reports its own peak resident memory)
and measures memory_es beside a physical reference on the same machine in the same run:
raw SQL inserts and scans of rows shaped like our stored events. Figures are medians and
ratios; nothing here fails on a stopwatch. See docs/performance.md.
"""
