"""What every external dataset becomes: scenarios of sessions, turns and probes.

A loader reads one dataset item at a time and yields :class:`Scenario` values; the
driver records them into a memory store and asks the probes. Nothing here holds a
dataset whole, and nothing here knows a dataset's file layout.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any


@dataclass(frozen=True)
class Turn:
    """One dataset turn. ``ref`` is the dataset's own id for it (``D3:7``, ``s2:t4``)."""

    ref: str
    speaker: str  # the speaker's name (LoCoMo) or the role (``user`` / ``assistant``)
    text: str
    at: datetime | None = None  # the turn's own time, when the dataset gives one


@dataclass(frozen=True)
class Session:
    ref: str
    at: datetime | None  # ``None`` when the dataset's date could not be read
    turns: tuple[Turn, ...]


@dataclass(frozen=True)
class Evidence:
    """One unit of evidence: a turn, or a whole session when the turn is unknown."""

    session_ref: str
    turn_ref: str | None  # ``None``: session granularity (the fallback)


@dataclass(frozen=True)
class Probe:
    probe_id: str
    category: str
    question: str
    answer: str | None
    evidence: tuple[Evidence, ...]
    after_session: int  # probes are asked once sessions[0..after_session] are recorded
    # The principals this probe is scored against (LoCoMo: the evidence speaker).
    principals: tuple[str, ...]
    in_overall: bool = True  # False: reported separately, outside the overall figure
    # When the probe is asked (LongMemEval's question_date); None: when its last needed
    # session has been recorded.
    asked_at: datetime | None = None


@dataclass(frozen=True)
class LabeledBelief:
    """A dataset's own gold memory point (HaluMem), kept for the mapping report."""

    label: str
    session_index: int
    is_update: bool
    supersedes: tuple[str, ...]


@dataclass(frozen=True)
class Scenario:
    scenario_id: str
    sessions: tuple[Session, ...]
    probes: tuple[Probe, ...]
    # Whose turns are the formation source in each recording: one recording per
    # principal; a turn whose speaker is the principal is a user turn, any other
    # speaker's turn is recorded as a non-source (assistant) turn.
    principals: tuple[str, ...]
    labeled_beliefs: tuple[LabeledBelief, ...] = ()
    unresolved_supersessions: int = 0


@dataclass
class LoadReport:
    """What a loader skipped (with its reason) and which quirks it tolerated."""

    skipped: Counter[str] = field(default_factory=Counter)
    quirks: Counter[str] = field(default_factory=Counter)

    def skip(self, reason: str, n: int = 1) -> None:
        self.skipped[reason] += n

    def quirk(self, what: str, n: int = 1) -> None:
        self.quirks[what] += n

    def chat_turn(self, raw: object) -> tuple[str, str] | None:
        """The (role, content) of a user/assistant turn; None, counted, when unusable."""
        if not isinstance(raw, dict):
            self.skip("turn_not_an_object")
            return None
        role, content = raw.get("role"), raw.get("content")
        if role not in ("user", "assistant"):
            self.skip("turn_with_unknown_role")
            return None
        if not isinstance(content, str) or not content.strip():
            self.skip("turn_without_text")
            return None
        return str(role), content

    def question(self, raw: object, *, not_an_object: str) -> tuple[dict[str, Any], str] | None:
        """A question item and its text; None, counted, when it has no question."""
        if not isinstance(raw, dict):
            self.skip(not_an_object)
            return None
        question = raw.get("question")
        if not isinstance(question, str) or not question.strip():
            self.skip("question_missing")
            return None
        return raw, question


def parse_date(
    text: object, formats: tuple[str, ...], *, iso_fallback: bool = False
) -> datetime | None:
    """A dataset's date in UTC: the first of its formats that reads the whitespace-folded
    text (then ISO-8601, when the dataset allows it); None when none does."""
    if not isinstance(text, str) or not text.strip():
        return None
    cleaned = " ".join(text.split())
    for fmt in formats:
        try:
            return datetime.strptime(cleaned, fmt).replace(tzinfo=UTC)
        except ValueError:
            continue
    if not iso_fallback:
        return None
    try:
        parsed = datetime.fromisoformat(cleaned.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


class MalformedDataset(ValueError):
    """The file is not shaped like the dataset it was named as."""
