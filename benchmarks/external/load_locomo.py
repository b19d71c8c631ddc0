"""LoCoMo (CC BY-NC 4.0): ten long two-speaker conversations with QA over them.

Shape: a JSON list of ``{sample_id, conversation, qa, ...}``; ``conversation`` holds
``speaker_a``, ``speaker_b``, ``session_<N>`` turn lists of ``{speaker, dia_id, text}``
and ``session_<N>_date_time``; each ``qa`` item has ``question``, ``answer``,
``evidence`` (dia ids ``D<N>:<k>``) and ``category`` (1 multi-hop, 2 temporal,
3 open-domain, 4 single-hop, 5 adversarial).

Quirks of the real file, tolerated and counted: session keys are read in numeric order
(``session_10`` after ``session_9``); some answers are integers; adversarial items have
no ``answer``; evidence strings can hold several ids (``"D8:6; D9:17"``), a stray colon
(``"D:11:26"``), a zero-padded index (``"D30:05"``), a bare ``"D"``, or a turn that does
not exist (then the session stands in for it).

Mapping (seed): one speaker is the principal and the only formation source; the other
speaker's turns are recorded as non-source turns. ``both`` records the conversation once
per speaker, each speaker its own principal, and scores each question against the
principal whose turns hold its evidence; a question with evidence in both speakers'
turns is reported separately (``cross-speaker``), scored against both.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memory_es.benchmarks.external.jsonstream import iter_json_list
from memory_es.benchmarks.external.model import (
    Evidence,
    LoadReport,
    MalformedDataset,
    Probe,
    Scenario,
    Session,
    Turn,
    parse_date,
)

LICENCE = "CC BY-NC 4.0"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
SEPARATE = frozenset({"adversarial", "cross-speaker"})
SPEAKER_CHOICES = ("a", "b", "both")

_SESSION_KEY = re.compile(r"^session_(\d+)$")
_EVIDENCE_ID = re.compile(r"^D:?(\d+):(\d+)$")
_SPLIT = re.compile(r"[;,\s]+")
_DATE_FORMATS = ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%I:%M %p on %B %d, %Y")


def split_evidence(raw: object, report: LoadReport) -> list[tuple[int, int]]:
    """Evidence strings as (session, turn) pairs; malformed parts dropped and counted."""
    if not isinstance(raw, list):
        if raw is not None:
            report.quirk("evidence_not_a_list")
        return []
    out: list[tuple[int, int]] = []
    for entry in raw:
        if not isinstance(entry, str):
            report.quirk("evidence_id_not_a_string")
            continue
        parts = [p for p in _SPLIT.split(entry.strip()) if p]
        if len(parts) > 1:
            report.quirk("evidence_ids_joined_in_one_string")
        for part in parts:
            m = _EVIDENCE_ID.match(part)
            if m is None:
                report.quirk("evidence_id_malformed_dropped")
                continue
            if part.startswith("D:"):
                report.quirk("evidence_id_stray_colon")
            if re.search(r":0\d", part):
                report.quirk("evidence_id_zero_padded")
            pair = (int(m.group(1)), int(m.group(2)))
            if pair not in out:
                out.append(pair)
    return out


def _turn_ref(session: int, turn: int) -> str:
    return f"D{session}:{turn}"


def _turn_index(dia_id: object) -> tuple[int, int] | None:
    if not isinstance(dia_id, str):
        return None
    m = _EVIDENCE_ID.match(dia_id.strip())
    return (int(m.group(1)), int(m.group(2))) if m else None


def load(path: Path, report: LoadReport, *, principal_speaker: str = "both") -> Iterator[Scenario]:
    if principal_speaker not in SPEAKER_CHOICES:
        raise ValueError(f"principal speaker must be one of {SPEAKER_CHOICES}")
    for index, item in enumerate(iter_json_list(path)):
        scenario = _scenario(item, index, report, principal_speaker)
        if scenario is not None:
            yield scenario


def _scenario(
    item: dict[str, Any], index: int, report: LoadReport, principal_speaker: str
) -> Scenario | None:
    conversation = item.get("conversation")
    if not isinstance(conversation, dict):
        raise MalformedDataset(f"item {index} has no conversation object: is this LoCoMo?")
    sample_id = str(item.get("sample_id") or f"sample-{index}")
    speaker_a, speaker_b = conversation.get("speaker_a"), conversation.get("speaker_b")
    if not isinstance(speaker_a, str) or not isinstance(speaker_b, str) or speaker_a == speaker_b:
        report.skip("conversation_without_two_named_speakers")
        return None

    numbers = sorted(
        int(m.group(1)) for key in conversation if (m := _SESSION_KEY.match(key)) is not None
    )
    sessions: list[Session] = []
    speaker_of: dict[tuple[int, int], str] = {}
    session_numbers: set[int] = set()
    for number in numbers:
        raw_turns = conversation.get(f"session_{number}")
        if not isinstance(raw_turns, list):
            report.quirk("session_not_a_list")
            continue
        at = parse_date(conversation.get(f"session_{number}_date_time"), _DATE_FORMATS)
        if at is None:
            report.quirk("session_date_unreadable")
        turns: list[Turn] = []
        for position, raw in enumerate(raw_turns, start=1):
            if not isinstance(raw, dict):
                report.skip("turn_not_an_object")
                continue
            speaker, text = raw.get("speaker"), raw.get("text")
            if speaker not in (speaker_a, speaker_b):
                report.skip("turn_from_an_unknown_speaker")
                continue
            if not isinstance(text, str) or not text.strip():
                report.skip("turn_without_text")
                continue
            pair = _turn_index(raw.get("dia_id"))
            if pair is None or pair[0] != number:
                report.quirk("turn_dia_id_missing_or_foreign")
                pair = (number, position)
            speaker_of[pair] = str(speaker)
            turns.append(Turn(ref=_turn_ref(*pair), speaker=str(speaker), text=text))
        session_numbers.add(number)
        sessions.append(Session(ref=f"D{number}", at=at, turns=tuple(turns)))
    if not sessions:
        report.skip("conversation_without_sessions")
        return None

    if principal_speaker == "a":
        principals: tuple[str, ...] = (speaker_a,)
    elif principal_speaker == "b":
        principals = (speaker_b,)
    else:
        principals = (speaker_a, speaker_b)

    probes: list[Probe] = []
    qa = item.get("qa")
    if not isinstance(qa, list):
        report.quirk("conversation_without_qa")
        qa = []
    for q_index, raw in enumerate(qa):
        probe = _probe(
            raw,
            f"{sample_id}/q{q_index}",
            report,
            speaker_of,
            session_numbers,
            principals,
            len(sessions) - 1,
        )
        if probe is not None:
            probes.append(probe)
    return Scenario(
        scenario_id=sample_id, sessions=tuple(sessions), probes=tuple(probes), principals=principals
    )


def _probe(
    raw: object,
    probe_id: str,
    report: LoadReport,
    speaker_of: dict[tuple[int, int], str],
    session_numbers: set[int],
    principals: tuple[str, ...],
    last_session: int,
) -> Probe | None:
    item = report.question(raw, not_an_object="qa_item_not_an_object")
    if item is None:
        return None
    raw, question = item
    category = CATEGORIES.get(raw.get("category"))  # type: ignore[arg-type]
    if category is None:
        report.skip("category_unknown")
        return None
    answer = raw.get("answer")
    if answer is None:
        if category != "adversarial":
            report.skip("answer_missing")
            return None
        report.quirk("adversarial_without_answer")
    elif not isinstance(answer, str):
        report.quirk("answer_not_a_string")
        answer = str(answer)

    evidence: list[Evidence] = []
    speakers: set[str] = set()
    for session, turn in split_evidence(raw.get("evidence"), report):
        speaker = speaker_of.get((session, turn))
        if speaker is not None:
            evidence.append(Evidence(session_ref=f"D{session}", turn_ref=_turn_ref(session, turn)))
            speakers.add(speaker)
        elif session in session_numbers:
            report.quirk("evidence_turn_unknown_session_fallback")
            evidence.append(Evidence(session_ref=f"D{session}", turn_ref=None))
        else:
            report.quirk("evidence_session_unknown_dropped")
    if not evidence:
        report.skip("no_usable_evidence")
        return None
    if not speakers:
        # Only session-level evidence: whose turns hold it cannot be told.
        report.skip("evidence_speaker_unknown")
        return None

    in_overall = category not in SEPARATE
    if len(speakers) > 1:
        scored = tuple(p for p in principals if p in speakers)
        if len(scored) < len(speakers):
            report.skip("evidence_not_in_principal_turns")
            return None
        category, in_overall = "cross-speaker", False
    else:
        (speaker,) = speakers
        if speaker not in principals:
            report.skip("evidence_not_in_principal_turns")
            return None
        scored = (speaker,)
    return Probe(
        probe_id=probe_id,
        category=category,
        question=question.strip(),
        answer=answer,
        evidence=tuple(evidence),
        after_session=last_session,
        principals=scored,
        in_overall=in_overall,
    )
