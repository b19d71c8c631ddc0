"""HaluMem (CC BY-NC-ND 4.0): per-user multi-session dialogues with gold memory points.

Shape: JSON Lines, one user per line: ``{uuid, persona_info, sessions}``; each session
has ``start_time``, ``dialogue`` (``{role, content, timestamp?}``), ``memory_points``
(``{index, memory_content, memory_type, is_update, original_memories}``) and
``questions`` (``{question, answer, evidence: [{memory_content, ...}], question_type}``).

Mapping (seed): memory points become labelled beliefs; a point with ``is_update`` is a
labelled supersession of the earlier points its ``original_memories`` name (matched by
normalised content; an unmatched one is counted); questions become probes, asked right
after the session that carries them. Evidence names memory points by content, not turns,
so the turn index is unknown: evidence falls back to the sessions that hold the point.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memory_es.benchmarks.external.jsonstream import iter_jsonl
from memory_es.benchmarks.external.model import (
    Evidence,
    LabeledBelief,
    LoadReport,
    MalformedDataset,
    Probe,
    Scenario,
    Session,
    Turn,
    parse_date,
)

LICENCE = "CC BY-NC-ND 4.0"
PRINCIPAL = "user"
SEPARATE: frozenset[str] = frozenset()
_DATE_FORMATS = (
    "%b %d, %Y, %H:%M:%S",
    "%B %d, %Y, %H:%M:%S",
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%dT%H:%M:%S",
    "%Y-%m-%d %H:%M",
    "%Y/%m/%d %H:%M:%S",
    "%Y-%m-%d",
)


def normalise(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.casefold()).split())


def _is_true(value: object) -> bool:
    return value is True or (isinstance(value, str) and value.strip().lower() == "true")


def load(path: Path, report: LoadReport) -> Iterator[Scenario]:
    for index, item in enumerate(iter_jsonl(path)):
        scenario = _scenario(item, index, report)
        if scenario is not None:
            yield scenario


def _scenario(item: dict[str, Any], index: int, report: LoadReport) -> Scenario | None:
    raw_sessions = item.get("sessions")
    if not isinstance(raw_sessions, list):
        raise MalformedDataset(f"line {index + 1} has no sessions list: is this HaluMem?")
    user = str(item.get("uuid") or f"user-{index}")
    sessions: list[Session] = []
    probes: list[Probe] = []
    labeled: list[LabeledBelief] = []
    unresolved = 0
    sessions_of: dict[str, list[int]] = {}  # normalised memory content -> session indexes
    label_of: dict[str, str] = {}  # normalised memory content -> newest label

    for s_index, raw in enumerate(raw_sessions):
        if not isinstance(raw, dict):
            report.skip("session_not_an_object")
            continue
        ref = f"s{s_index}"
        at = parse_date(raw.get("start_time"), _DATE_FORMATS, iso_fallback=True)
        if at is None:
            report.quirk("session_date_unreadable")
        if raw.get("is_generated_qa_session"):
            report.quirk("generated_filler_session_recorded")
        turns: list[Turn] = []
        dialogue = raw.get("dialogue")
        if not isinstance(dialogue, list):
            report.quirk("session_without_dialogue")
            dialogue = []
        for t_index, turn in enumerate(dialogue):
            chat = report.chat_turn(turn)
            if chat is None:
                continue
            role, text = chat
            at_turn = parse_date(turn.get("timestamp"), _DATE_FORMATS, iso_fallback=True)
            turns.append(Turn(ref=f"{ref}#{t_index}", speaker=role, text=text, at=at_turn))
        sessions.append(Session(ref=ref, at=at, turns=tuple(turns)))
        position = len(sessions) - 1

        points = raw.get("memory_points")
        for p_index, point in enumerate(points if isinstance(points, list) else []):
            content = point.get("memory_content") if isinstance(point, dict) else None
            if not isinstance(content, str) or not content.strip():
                report.skip("memory_point_without_content")
                continue
            assert isinstance(point, dict)
            label = f"{ref}:m{point.get('index', p_index)}"
            supersedes: list[str] = []
            is_update = _is_true(point.get("is_update"))
            if is_update:
                originals = point.get("original_memories")
                for original in originals if isinstance(originals, list) else []:
                    found = label_of.get(normalise(str(original)))
                    if found is None:
                        unresolved += 1
                    else:
                        supersedes.append(found)
            labeled.append(LabeledBelief(label, position, is_update, tuple(supersedes)))
            key = normalise(content)
            sessions_of.setdefault(key, [])
            if position not in sessions_of[key]:
                sessions_of[key].append(position)
            label_of[key] = label

        questions = raw.get("questions")
        for q_index, question in enumerate(questions if isinstance(questions, list) else []):
            probe = _probe(question, f"{user}/{ref}/q{q_index}", position, sessions_of, report)
            if probe is not None:
                probes.append(probe)
    if not sessions:
        report.skip("user_without_sessions")
        return None
    return Scenario(
        scenario_id=user,
        sessions=tuple(sessions),
        probes=tuple(probes),
        principals=(PRINCIPAL,),
        labeled_beliefs=tuple(labeled),
        unresolved_supersessions=unresolved,
    )


def _probe(
    raw: object,
    probe_id: str,
    position: int,
    sessions_of: dict[str, list[int]],
    report: LoadReport,
) -> Probe | None:
    item = report.question(raw, not_an_object="question_not_an_object")
    if item is None:
        return None
    raw, question = item
    answer = raw.get("answer")
    if answer is not None and not isinstance(answer, str):
        report.quirk("answer_not_a_string")
        answer = str(answer)
    evidence: list[Evidence] = []
    raw_evidence = raw.get("evidence")
    for entry in raw_evidence if isinstance(raw_evidence, list) else []:
        content = entry.get("memory_content") if isinstance(entry, dict) else entry
        if not isinstance(content, str) or not content.strip():
            report.quirk("evidence_without_memory_content")
            continue
        found = sessions_of.get(normalise(content))
        if not found:
            report.quirk("evidence_memory_point_not_found")
            continue
        # The session where the point was first stated holds its evidence.
        unit = Evidence(session_ref=f"s{found[0]}", turn_ref=None)
        if unit not in evidence:
            evidence.append(unit)
    if not evidence:
        report.skip("no_usable_evidence")
        return None
    category = str(raw.get("question_type") or "unknown")
    return Probe(
        probe_id=probe_id,
        category=category,
        question=question.strip(),
        answer=answer,
        evidence=tuple(evidence),
        after_session=position,
        principals=(PRINCIPAL,),
        in_overall=category not in SEPARATE,
    )
