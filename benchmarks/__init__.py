"""The evaluation harness and performance benchmarks.

Never imported by ``memory_es`` or ``projections``, except lazily from the command line.
"""
