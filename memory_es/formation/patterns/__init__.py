"""The pattern catalogue of the deterministic extractor.

Each rule reads one clause (already repaired, split and stripped of discourse markers by
``memory_es.formation.text``) and returns the beliefs it states, in the third person.
``lexicon`` holds the shared word lists, ``morphology`` the verb forms (with the
project's one stemmer), ``phrases`` the object and subject handling, one module per rule
family holds its rules, ``catalogue`` states their order, and ``clauses`` walks a turn's
clauses through it; ``reference`` (names and facts across a turn's sentences) and
``corrections`` ("it's the 12th, not the 10th") are read by the walk itself.
docs/formation.md documents every rule: its belief type, its subject
and its statement form. Keep the two in step: the benchmark matches on the (type,
subject, statement) triple.
"""

from memory_es.formation.patterns.clauses import extract_clauses, match_clause
from memory_es.formation.patterns.rule import Found

__all__ = ["Found", "extract_clauses", "match_clause"]
