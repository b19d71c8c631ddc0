"""The rule order of the catalogue, stated once.

The rules run in this order and the first that matches wins (a match may form nothing:
that is how hedges and non-names are refused), so retractions are read before the
assertions they retract, birth and origin before the hedge guard ("I was ..." is
otherwise past tense), and so is a dietary restriction ("I can't eat gluten"), what
the user is weighing up ("I'm thinking of ...": so, though nothing is decided) before
the hedges, hedges before anything that would read them as facts, requests about the
service before the preferences ("I prefer you explain ..." is a request, not an
object), and the episode rules last, as catch-alls: when one of them refuses, the
clause is still unread and the walk goes on (``FALLBACK_RULES``). docs/formation.md
documents every rule.
"""

from __future__ import annotations

from memory_es.formation.patterns import (
    asides,
    attributes,
    birth,
    decisions,
    employment,
    episodes,
    events,
    hedges,
    possessions,
    preferences,
    relationships,
    requests,
    residence,
    retractions,
    switches,
)
from memory_es.formation.patterns.rule import Rule

CATALOGUE: tuple[Rule, ...] = (
    *retractions.RULES,
    *switches.RULES,
    *birth.RULES,
    *attributes.RESTRICTION_RULES,
    *asides.RULES,
    *hedges.RULES,
    *residence.RULES,
    *employment.RULES,
    *relationships.RULES,
    *requests.RULES,
    *preferences.RULES,
    *decisions.RULES,
    *possessions.RULES,
    *attributes.RULES,
    *events.RULES,
    *episodes.RULES,
)

# The episode rules read what nothing above read; when they refuse, the clause is
# still unread (a list continuation or an inner "I ..." may read it).
FALLBACK_RULES = frozenset(r.name for r in episodes.RULES)

# A clause only tries the rules anchored on its own first word ("I", "My") and the
# unanchored ones, in catalogue order.
_BY_FIRST_WORD: dict[str, tuple[Rule, ...]] = {
    word: tuple(r for r in CATALOGUE if r.anchor in (word or None, None))
    for word in ("i", "my", "")
}


def rules_for(first_word: str) -> tuple[Rule, ...]:
    """The rules a clause opening with ``first_word`` (lowercased) may match, in order."""
    return _BY_FIRST_WORD[first_word if first_word in ("i", "my") else ""]
