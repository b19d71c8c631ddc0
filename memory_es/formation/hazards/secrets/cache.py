"""The compiled-pattern cache every module of the package compiles through (saved once,
at the end of the package's ``__init__``)."""

from memory_es.pattern_cache import PatternCache

patterns = PatternCache(__file__)

Span = tuple[int, int, str]  # start, end, kind
