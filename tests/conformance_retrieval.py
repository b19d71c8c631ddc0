"""Retrieval cases of the store conformance suite: every store kind runs them identically.

Mixed into ``StoreConformance`` (tests/conformance.py), so memory, SQLite and PostgreSQL
each answer the same as_of, validity, conflict, subject-cap and trace questions.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path

import pytest

import memory_es
from memory_es.domain.values import short_id
from memory_es.ports import FixedClock
from memory_es.profiles import load_profile
from memory_es.projections import candidates as cq
from memory_es.projections.records import BeliefRecord, principal_key
from memory_es.retrieval.tokenizer import document_terms

DAY = 86400
# The vector arm with the deterministic hashed embedder, on every store.
HYBRID_LINES = [
    "[m:b54cda26] User's wife is Morgan.",
    "[m:17156075] User works at Acme Labs as a data engineer.",
]
HYBRID_COSINES = [0.5, 0.204124]


def _play(memory: memory_es.Memory, clock: FixedClock) -> None:
    from tests.conformance import play

    play(memory, clock)


def seed(memory: memory_es.Memory, principal: str, rows: Sequence[dict[str, object]]) -> None:
    """Write beliefs straight into the read model (shapes formation cannot yet produce)."""
    key = principal_key("default", principal)
    with memory.index.writer() as writer:
        for n, row in enumerate(rows, start=1):
            statement = str(row["statement"])
            subjects = tuple(row.get("subjects", ("topic",)))  # type: ignore[call-overload]
            terms = document_terms(statement + " " + " ".join(subjects))
            belief_id = f"{n:08x}-0000-4000-8000-{principal.encode().hex()[:12]:0>12}"
            record = BeliefRecord(
                belief_id=belief_id,
                short_id=short_id(belief_id),
                principal=key,
                statement=statement,
                belief_type=str(row.get("belief_type", "fact")),
                subjects=subjects,
                polarity=True,
                authority=int(row.get("authority", 3)),  # type: ignore[call-overload]
                confidence=float(row.get("confidence", 0.9)),  # type: ignore[arg-type]
                status=str(row.get("status", "active")),
                project=str(row.get("project", "general")),
                portable=bool(row.get("portable", False)),
                source_event_ids=(f"turn-{n}",),
                source_session_id="session",
                valid_from=str(row.get("valid_from", "2026-03-02T09:00:00Z")),
                valid_to=row.get("valid_to"),  # type: ignore[arg-type]
                successor_id=None,
                conflicts_with=tuple(row.get("conflicts_with", ())),  # type: ignore[call-overload]
                position=10_000 + n,
                evidence_count=1,
                last_evidence_at=str(row.get("valid_from", "2026-03-02T09:00:00Z")),
                formed_at="2026-03-02T09:00:00Z",
                policy="formation@1",
                doc_len=sum(terms.values()),
            )
            writer.insert_belief(record, terms)


class RetrievalConformance:
    # -- validity before fusion and ranking ---------------------------------------------

    def test_as_of_answers_what_was_believed_at_an_instant(
        self, memory: memory_es.Memory, clock: FixedClock
    ) -> None:
        from tests.conformance import START

        _play(memory, clock)
        at = START + timedelta(days=10)
        result = memory.recall("alice", "where do I live", as_of=at)
        assert [s.record.statement for s in result.items] == ["User lives in Seattle."]
        assert result.items[0].validity == "superseded"
        assert result.as_of == "2026-03-12T09:00:00Z"
        later = memory.recall("alice", "where do I live", as_of="2026-05-01T00:00:00Z")
        assert [s.record.statement for s in later.items] == ["User lives in Portland."]
        assert memory.recall("alice", "where do I live", as_of="2026-01-01T00:00:00Z").items == ()

    def test_current_recall_filters_superseded_before_ranking(
        self, memory: memory_es.Memory, clock: FixedClock
    ) -> None:
        _play(memory, clock)
        current = memory.recall("alice", "Seattle")
        assert current.items == ()  # not demoted: withheld
        history = memory.recall("alice", "Seattle Portland", include_superseded=True)
        assert [(s.record.statement, s.validity) for s in history.items] == [
            ("User lives in Portland.", "current"),
            ("User lives in Seattle.", "superseded"),
        ]
        seattle = history.items[1]
        assert seattle.components.stale_penalty == load_profile().retrieval.stale_penalty

    def test_unresolved_conflicts_are_kept_labelled_and_bypass_the_subject_cap(
        self, url: str, clock: FixedClock
    ) -> None:
        profile = load_profile({"retrieval": {"per_subject_cap": 1}})
        with memory_es.open(
            url, clock=clock, ids=memory_es.SequentialIds(), profile=profile
        ) as memory:
            first, second = memory.open_session("kim"), memory.open_session("kim")
            memory.say(first, "I live in Oslo.")
            memory.say(second, "I live in Bergen.")  # same instant: nothing orders them
            memory.close_session(first)
            assert memory.close_session(second).counts.conflicted == 1
            result = memory.recall("kim", "where do I live")
        assert result.lines() == [
            "[m:17156075] User lives in Oslo. conflicts=[m:b54cda26]",
            "[m:b54cda26] User lives in Bergen. conflicts=[m:17156075]",
        ]
        assert [s.validity for s in result.items] == ["unresolved_conflict"] * 2

    def test_the_per_subject_cap_holds_back_a_third_statement(
        self, url: str, clock: FixedClock
    ) -> None:
        profile = load_profile({"retrieval": {"per_subject_cap": 2}})
        with memory_es.open(url, clock=clock, profile=profile) as memory:
            seed(
                memory,
                "lena",
                [
                    {"statement": "The deploy runs on Fridays.", "subjects": ("deploy",)},
                    {"statement": "The deploy needs two reviewers.", "subjects": ("deploy",)},
                    {"statement": "The deploy uses the blue cluster.", "subjects": ("deploy",)},
                    {"statement": "The deploy window is at 10:30.", "subjects": ("window",)},
                ],
            )
            result = memory.recall("lena", "deploy")
        subjects = [s.record.subjects[0] for s in result.items]
        assert subjects.count("deploy") == 2 and "window" in subjects
        assert [reason for _, reason in result.blocked] == ["subject_cap"]

    def test_a_question_asking_when_or_naming_a_period_favours_the_dated_statement(
        self, memory: memory_es.Memory
    ) -> None:
        seed(
            memory,
            "tara",
            [
                {"statement": "User was at the lake cabin last week.", "subjects": ("cabin",)},
                {"statement": "User loves the lake cabin.", "subjects": ("lake cabin",)},
                {
                    "statement": "User went to a jazz concert with Ana.",
                    "subjects": ("concert",),
                    "valid_from": "2026-01-10T20:00:00Z",
                },
                {
                    "statement": "User went to a jazz concert.",
                    "subjects": ("jazz",),
                    "valid_from": "2026-02-20T20:00:00Z",
                },
            ],
        )
        first = memory.recall("tara", "Tell me about the lake cabin").lines()[0]
        assert first.endswith("User loves the lake cabin.")
        first = memory.recall("tara", "When was I at the lake cabin?").lines()[0]
        assert first.endswith("User was at the lake cabin last week.")
        first = memory.recall("tara", "Which jazz concert did I go to?").lines()[0]
        assert first.endswith("User went to a jazz concert.")
        first = memory.recall("tara", "Which jazz concert did I go to in January 2026?")
        assert first.lines()[0].endswith("User went to a jazz concert with Ana.")

    def test_candidates_are_chosen_by_relevance_not_recency(self, memory: memory_es.Memory) -> None:
        # 70 newer beliefs share one word with the query; the oldest holds both words.
        # A newest-first cap of 64 would never offer it to ranking.
        rows: list[dict[str, object]] = [
            {"statement": "The kestrel project uses PostgreSQL.", "subjects": ("kestrel",)}
        ]
        rows += [
            {"statement": f"Note {n} about the project.", "subjects": (f"note {n}",)}
            for n in range(70)
        ]
        seed(memory, "omar", rows)
        result = memory.recall("omar", "which database does the kestrel project use?", limit=1)
        assert result.lines()[0].endswith("The kestrel project uses PostgreSQL.")

    def test_the_cap_is_taken_after_the_filters_even_when_the_best_scores_are_filtered(
        self, memory: memory_es.Memory
    ) -> None:
        # The 150 best-scoring rows (the shortest) belong to another project; the store
        # scores the best first and must still answer from the rows that pass the filters:
        # the 20 shortest of the project's own, shortest first. (300 rows without the word
        # keep its weight high enough that lengths give distinct scores.)
        filler = " ".join(f"w{i}" for i in range(40))
        rows: list[dict[str, object]] = [
            {"statement": f"Apple {n}.", "subjects": ("fruit",)} for n in range(300)
        ]
        rows += [
            {"statement": "Kiwi.", "project": "elsewhere", "subjects": ("fruit",)}
            for _ in range(150)
        ]
        rows += [
            {"statement": "Kiwi " + " ".join(filler.split()[:n]) + ".", "subjects": ("fruit",)}
            for n in range(1, 41)
        ]
        seed(memory, "quinn", rows)
        found = memory.index.candidates(
            principal_key("default", "quinn"), ["kiwi"], project="general", cap=20
        )
        assert [c.record.doc_len for c in found] == list(range(3, 23))
        assert all(c.record.project == "general" for c in found)
        scores = [c.lexical for c in found]
        assert scores == sorted(scores, reverse=True) and len(set(scores)) > 1

    def test_a_frequent_and_a_rare_term_score_as_the_bm25_formula_says(
        self, memory: memory_es.Memory
    ) -> None:
        # "banana" is in 230 of 500 beliefs, "cherry" in 40: the store's answer must be the
        # formula's, computed here from the seeded rows, scores and order both.
        rows: list[dict[str, object]] = [
            {"statement": f"Cherry banana note {n}." if n < 20 else f"Cherry note {n}."}
            for n in range(40)
        ]
        rows += [{"statement": f"Banana note {n}."} for n in range(210)]
        rows += [{"statement": f"Apple note {n}."} for n in range(250)]
        seed(memory, "sami", rows)
        docs = [
            (10_001 + i, document_terms(str(r["statement"]) + " topic")) for i, r in enumerate(rows)
        ]
        df = {t: sum(1 for _, d in docs if t in d) for t in ("banana", "cherry")}
        avgdl = sum(sum(d.values()) for _, d in docs) / len(docs)
        bm25 = cq.Bm25Params()
        weights = cq.term_weights(["banana", "cherry"], [], df, len(docs))
        scored = sorted(
            (
                -sum(
                    cq.contribution(w.weight, d[w.term], sum(d.values()), avgdl, bm25)
                    for w in weights
                    if w.term in d
                ),
                -position,
            )
            for position, d in docs
            if "banana" in d or "cherry" in d
        )[:20]
        found = memory.index.candidates(
            principal_key("default", "sami"), ["banana", "cherry"], project="general", cap=20
        )
        assert [(c.lexical, c.record.position) for c in found] == [(-s, -p) for s, p in scored]

    def test_rows_tied_at_the_cap_boundary_come_newest_first(
        self, memory: memory_es.Memory
    ) -> None:
        # 100 rows score the same: whichever rows the store scores first, the cap keeps
        # the newest 20.
        seed(
            memory,
            "rosa",
            [{"statement": f"Plum note {n}.", "subjects": ("plum",)} for n in range(100)],
        )
        found = memory.index.candidates(
            principal_key("default", "rosa"), ["plum"], project="general", cap=20
        )
        assert len({c.lexical for c in found}) == 1
        assert [c.record.position for c in found] == list(range(10_100, 10_080, -1))

    def test_lexical_ties_are_broken_newest_first(self, memory: memory_es.Memory) -> None:
        seed(
            memory,
            "pia",
            [{"statement": f"Ticket {n} is open.", "subjects": ("ticket",)} for n in range(3)],
        )
        profile_free = memory.recall("pia", "open", limit=3)
        positions = [s.record.position for s in profile_free.items]
        assert positions == sorted(positions, reverse=True)

    def test_the_hybrid_arm_answers_identically(self, url: str, clock: FixedClock) -> None:
        profile = load_profile({"retrieval": {"semantic_enabled": True}})
        with memory_es.open(
            url, clock=clock, ids=memory_es.SequentialIds(), profile=profile
        ) as memory:
            _play(memory, clock)
            result = memory.recall("alice", "Who is my wife, and where do I work?")
        assert result.lines() == HYBRID_LINES
        assert [round(s.cosine or 0.0, 6) for s in result.items] == HYBRID_COSINES

    def test_a_priming_read_and_a_delta_past_a_watermark(
        self, memory: memory_es.Memory, clock: FixedClock
    ) -> None:
        from memory_es.retrieval.recall import RecallQuery
        from tests.conformance import SCRIPT

        head_before = 0
        for number, (principal, project, days, turns) in enumerate(SCRIPT):
            if number == 2:  # the watermark: alice's head before her third session
                head_before = memory.head_position("alice")
            clock.advance(days * DAY)
            session = memory.open_session(principal, project=project)
            for text in turns:
                memory.say(session, text)
            memory.close_session(session)
        priming = memory.retriever.recall(
            RecallQuery(
                principal="default/alice", text="", project="general", limit=10, match_all=True
            )
        )
        assert sorted(s.record.statement for s in priming.items) == [
            "User lives in Portland.",
            "User prefers concise answers.",
            "User works at Acme Labs as a data engineer.",
            "User's wife is Morgan.",
        ]
        delta = memory.retriever.recall(
            RecallQuery(
                principal="default/alice",
                text="",
                project="general",
                limit=10,
                match_all=True,
                min_position=head_before,
            )
        )
        assert sorted(s.record.statement for s in delta.items) == [
            "User lives in Portland.",
            "User prefers concise answers.",
        ]
        portland = next(s for s in delta.items if "Portland" in s.record.statement)
        rest_of_delta = memory.retriever.recall(
            RecallQuery(
                principal="default/alice",
                text="",
                project="general",
                limit=10,
                match_all=True,
                min_position=head_before,
                exclude=(portland.record.belief_id,),
            )
        )
        assert [s.record.statement for s in rest_of_delta.items] == [
            "User prefers concise answers."
        ]
        assert memory.recall("alice", "").items == ()  # a query with no terms matches nothing

    # -- recall traces ------------------------------------------------------------------

    def test_trace_retention_operator_trace_fields_expire_on_schedule(
        self, memory: memory_es.Memory, clock: FixedClock
    ) -> None:
        _play(memory, clock)
        old = memory.recall("alice", "user", limit=2)
        clock.advance(20 * DAY)
        young = memory.recall("alice", "where do I live")
        assert old.trace_id and young.trace_id
        cited = old.items[0].record.belief_id
        assert memory.traces.mark_cited(old.trace_id, "default/alice", [cited]) == 1
        assert memory.traces.mark_cited(old.trace_id, "default/alice", [cited]) == 0
        before_old = memory.trace(old.trace_id)
        before_young = memory.trace(young.trace_id)
        assert before_old is not None and before_young is not None
        assert before_old.dropped and before_old.lexical_candidates is not None

        clock.advance(15 * DAY)  # the old trace is 35 days old, the young one 15
        assert memory.expire_operator_fields() == 1
        after_old = memory.trace(old.trace_id)
        assert after_old is not None and after_old.operator_expired
        for name in ("lexical_ms", "rank_ms", "total_ms", "lexical_candidates", "dropped"):
            assert getattr(after_old, name) is None, name
        # The user-safe tier survives intact, with the count of what was dropped.
        assert after_old.returned == before_old.returned
        assert after_old.cited == (cited,)
        assert after_old.blocked == before_old.blocked
        assert after_old.dropped_count == len(before_old.dropped or ()) > 0
        # An unexpired trace is untouched; a second sweep changes nothing.
        assert memory.trace(young.trace_id) == before_young
        assert memory.expire_operator_fields() == 0
        assert memory.trace(old.trace_id) == after_old

    def test_traces_record_no_content_and_survive_a_rebuild(
        self, memory: memory_es.Memory, clock: FixedClock
    ) -> None:
        _play(memory, clock)
        result = memory.recall("alice", "where do I live")
        assert result.trace_id is not None
        trace = memory.trace(result.trace_id)
        assert trace is not None
        assert trace.returned == tuple(s.record.belief_id for s in result.items)
        assert "Portland" not in repr(trace.as_dict()) and "live" not in repr(trace.as_dict())
        memory.rebuild_projections()
        assert memory.trace(result.trace_id) == trace


__all__ = ["Path", "RetrievalConformance", "pytest", "seed"]
