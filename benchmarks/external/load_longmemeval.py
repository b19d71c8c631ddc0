"""LongMemEval (MIT): one question per item, each with its own haystack of sessions.

Shape: a JSON list of ``{question_id, question_type, question, answer, question_date,
haystack_session_ids, haystack_dates, haystack_sessions, answer_session_ids}``; every
session is a list of ``{role, content, has_answer?}``. A ``question_id`` ending in
``_abs`` is an abstention question.

Mapping (seed): the user is the principal; assistant turns are non-source turns.
Question types become categories; ``_abs`` questions are the ``abstention`` category;
``single-session-assistant`` is reported separately (its evidence is an assistant turn,
which never forms, so it is expected to score zero by design). Evidence is the turns
marked ``has_answer``. As the official evaluation does (it renames such a session
``noans``), an answer session with no marked turn is not evidence: it is counted, never
widened to the whole session.

Time, as the official harness reads it: sessions are replayed in the order of their
dates (a haystack can list sessions out of order, even within one day; the sort is
stable, and a session whose date cannot be read keeps its place after the one before
it), and the question is asked at its ``question_date`` (never before the last session).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
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

LICENCE = "MIT"
PRINCIPAL = "user"
SEPARATE = frozenset({"single-session-assistant", "abstention"})
_DATE_FORMATS = ("%Y/%m/%d (%a) %H:%M", "%Y/%m/%d %H:%M", "%Y-%m-%d %H:%M", "%Y/%m/%d")


def in_time_order(sessions: list[Session]) -> list[Session]:
    """Sessions sorted by date, stably; an undated session keeps its place after the
    session before it (it sorts with that session's date)."""
    keyed: list[tuple[datetime, int, Session]] = []
    floor = datetime.min.replace(tzinfo=UTC)
    for index, session in enumerate(sessions):
        if session.at is not None:
            floor = session.at
        keyed.append((floor, index, session))
    keyed.sort(key=lambda entry: (entry[0], entry[1]))
    return [session for _, _, session in keyed]


def load(path: Path, report: LoadReport) -> Iterator[Scenario]:
    for index, item in enumerate(iter_json_list(path)):
        scenario = _scenario(item, index, report)
        if scenario is not None:
            yield scenario


def _scenario(item: dict[str, Any], index: int, report: LoadReport) -> Scenario | None:
    if "haystack_sessions" not in item or "question_id" not in item:
        raise MalformedDataset(f"item {index} has no haystack_sessions: is this LongMemEval?")
    question_id = str(item["question_id"])
    question = item.get("question")
    if not isinstance(question, str) or not question.strip():
        report.skip("question_missing")
        return None
    answer = item.get("answer")
    if answer is not None and not isinstance(answer, str):
        report.quirk("answer_not_a_string")
        answer = str(answer)
    question_type = str(item.get("question_type") or "unknown")
    category = "abstention" if question_id.endswith("_abs") else question_type

    raw_sessions = item.get("haystack_sessions")
    session_ids = item.get("haystack_session_ids") or []
    dates = item.get("haystack_dates") or []
    if not isinstance(raw_sessions, list):
        report.skip("haystack_not_a_list")
        return None
    if len(session_ids) != len(raw_sessions):
        report.quirk("session_ids_length_mismatch")
    if len(dates) != len(raw_sessions):
        report.quirk("dates_length_mismatch")
    answer_sessions = {str(s) for s in item.get("answer_session_ids") or []}

    sessions: list[Session] = []
    evidence: list[Evidence] = []
    seen: set[str] = set()
    for s_index, raw_turns in enumerate(raw_sessions):
        ref = str(session_ids[s_index]) if s_index < len(session_ids) else f"session-{s_index}"
        if ref in seen:  # a repeated session id must not merge two sessions' turns
            report.quirk("session_id_repeated")
            ref = f"{ref}@{s_index}"
        seen.add(ref)
        at = parse_date(dates[s_index], _DATE_FORMATS) if s_index < len(dates) else None
        if at is None:
            report.quirk("session_date_unreadable")
        if not isinstance(raw_turns, list):
            report.quirk("session_not_a_list")
            raw_turns = []
        turns: list[Turn] = []
        marked = False
        for t_index, raw in enumerate(raw_turns):
            chat = report.chat_turn(raw)
            if chat is None:
                continue
            role, content = chat
            turn_ref = f"{ref}#{t_index}"
            turns.append(Turn(ref=turn_ref, speaker=role, text=content))
            if raw.get("has_answer") is True:
                marked = True
                evidence.append(Evidence(session_ref=ref, turn_ref=turn_ref))
        if ref in answer_sessions and not marked:
            report.quirk("answer_session_without_marked_turn_not_evidence")
        sessions.append(Session(ref=ref, at=at, turns=tuple(turns)))
    if not sessions:
        report.skip("haystack_empty")
        return None
    if not evidence:
        report.skip("no_usable_evidence")
        return None
    ordered = in_time_order(sessions)
    if ordered != sessions:
        report.quirk("sessions_replayed_in_date_order")
    asked_at = parse_date(item.get("question_date"), _DATE_FORMATS)
    last = max((s.at for s in ordered if s.at is not None), default=None)
    if asked_at is None:
        report.quirk("question_date_unreadable")
    elif last is not None and asked_at < last:
        report.quirk("question_date_before_last_session")
        asked_at = last
    probe = Probe(
        probe_id=question_id,
        category=category,
        question=question.strip(),
        answer=answer,
        evidence=tuple(evidence),
        after_session=len(ordered) - 1,
        principals=(PRINCIPAL,),
        in_overall=category not in SEPARATE,
        asked_at=asked_at,
    )
    return Scenario(
        scenario_id=question_id,
        sessions=tuple(ordered),
        probes=(probe,),
        principals=(PRINCIPAL,),
    )
