"""Importance: the RFC's deterministic seed, recomputed from events, never by a model.

``importance = clamp(base(kind) + updates_state, 0..3)``, capped at normal (1) for weak
evidence (an inference). Our belief types map onto the RFC's kinds: an episode or a
residue line ("what the user did / said in passing") is a working note (0); a procedure
pointer is a standing instruction, like a constraint (2); every other type is normal (1).
``updates_state`` is +1 when the belief superseded another (an evidence-backed revise of
current state). The thin-content penalty is 0 (stage 1 infers nothing from prose).
"""

from __future__ import annotations

from memory_es.domain.values import Authority, BeliefType

LOW, NORMAL, HIGH, CRITICAL = 0, 1, 2, 3

# The resolver key an episode and a residue line carry (formation/patterns.py).
WORKING_NOTE_KEY_PREFIX = "episode/"

_BASE: dict[str, int] = {
    BeliefType.FACT.value: NORMAL,
    BeliefType.PREFERENCE.value: NORMAL,
    BeliefType.RELATIONSHIP.value: NORMAL,
    BeliefType.USER_MODEL_ATTR.value: NORMAL,
    BeliefType.PROCEDURE_POINTER.value: HIGH,
}


def kind_of(belief_type: str, subject_key: str) -> str:
    """The RFC kind a belief counts as: ``working_note`` or its belief type."""
    if subject_key.startswith(WORKING_NOTE_KEY_PREFIX):
        return "working_note"
    return belief_type


def importance(*, belief_type: str, subject_key: str, authority: int, updates_state: bool) -> int:
    kind = kind_of(belief_type, subject_key)
    base = LOW if kind == "working_note" else _BASE.get(kind, NORMAL)
    score = max(LOW, min(CRITICAL, base + (1 if updates_state else 0)))
    if authority <= Authority.INFERRED:
        score = min(score, NORMAL)  # weak evidence does not exceed normal
    return score
