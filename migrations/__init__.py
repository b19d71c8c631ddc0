"""Versioned SQL for the read-model tables; ``{p}`` is the table-name prefix.

Files apply in name order. ``CREATE INDEX`` statements are kept apart by the loader so a
rebuild can fill fresh tables first and index them when they are swapped in.
"""
