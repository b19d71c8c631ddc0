"""L2 reviewed maintenance and near-duplicate alignment on every store (RFC 002:
"Near-duplicate alignment", "L2: reviewed semantic maintenance" and its acceptance
criteria). A mixin for the ``TestXStore`` classes: it uses their ``url`` and ``clock``
fixtures and opens its own store with alignment on (``lifecycle.alignment.enabled``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

import memory_es
from memory_es.errors import InvalidInput
from memory_es.evidence.declarations import (
    SESSION_DECLARATION,
    UNDECLARED,
    EvidenceDeclaration,
    SourceAuthority,
    Verification,
)
from memory_es.ports import FixedClock
from memory_es.profiles import load_profile
from memory_es.projections.records import BeliefRecord
from memory_es.review.alignment import clusters
from memory_es.review.ledger import ReviewLedger, ledger_id
from tests.context_conformance import spoken

PRINCIPAL = "ana"
ALIGNED = {"lifecycle": {"alignment": {"enabled": True}}}
QUALITY = {"retrieval": {"quality_reorder_enabled": True}}
LOVE = "I love hiking in the Dolomites with my dog Pepper."
FAVOURITE = "Hiking the Dolomites with Pepper, my dog, is my favourite thing."
WEEKENDS = "On weekends I go hiking in the Dolomites with Pepper."
KEPT = "User loves hiking in the Dolomites with their dog Pepper."
PARAPHRASE = "User is hiking the Dolomites with Pepper."


def live_statements(memory: memory_es.Memory) -> list[tuple[str, str, int]]:
    return sorted(
        (b.statement, b.status, b.evidence_count)
        for b in memory.list_beliefs(PRINCIPAL)
        if b.status in ("active", "provisional")
    )


def record(memory: memory_es.Memory, statement: str) -> BeliefRecord:
    rows = [b for b in memory.list_beliefs(PRINCIPAL) if b.statement == statement]
    assert len(rows) == 1, (statement, [b.statement for b in memory.list_beliefs(PRINCIPAL)])
    return rows[0]


def ledger_events(memory: memory_es.Memory) -> list[Any]:
    return list(memory.app.events.get(ledger_id("default", PRINCIPAL)))


def ingest_lines(*texts: str) -> list[str]:
    """One session a day per text, as ``memory-es ingest`` reads them."""
    return [
        json.dumps(
            {
                "principal": PRINCIPAL,
                "session": f"s{n}",
                "project": "general",
                "at": f"2026-03-0{n + 1}T09:00:00Z",
                "role": "user",
                "text": text,
            }
        )
        for n, text in enumerate(texts)
    ]


class ReviewConformance:
    """Cases every store must pass identically (mixed into the store test classes)."""

    @contextmanager
    def reviewed(
        self, url: str, clock: FixedClock, overlay: dict[str, Any] | None = ALIGNED
    ) -> Iterator[memory_es.Memory]:
        with memory_es.open(
            url, clock=clock, ids=memory_es.SequentialIds(), profile=load_profile(overlay)
        ) as memory:
            yield memory

    @pytest.fixture
    def aligned(self, url: str, clock: FixedClock) -> Iterator[memory_es.Memory]:
        with self.reviewed(url, clock) as memory:
            yield memory

    def test_rfc_paraphrases_stay_separate_beliefs_until_a_reviewer_approves(
        self, aligned: memory_es.Memory, clock: FixedClock
    ) -> None:
        spoken(aligned, clock, PRINCIPAL, LOVE)
        spoken(aligned, clock, PRINCIPAL, FAVOURITE)
        kept, paraphrase = record(aligned, KEPT), record(aligned, PARAPHRASE)
        assert kept.status == "active" and paraphrase.status == "provisional"
        [proposal] = aligned.review.list(PRINCIPAL)
        assert (proposal.kind, proposal.state) == ("consolidation", "pending")
        assert set(proposal.members) == {kept.belief_id, paraphrase.belief_id}
        assert proposal.pre_state == {
            kept.belief_id: [kept.position, kept.evidence_count],
            paraphrase.belief_id: [paraphrase.position, paraphrase.evidence_count],
        }
        assert proposal.policy == "review@1" and proposal.derived_views

        approved = aligned.review.approve(proposal.id)
        assert approved.state == "approved"
        operation = approved.operation
        assert operation is not None
        assert operation["proposal_id"] == proposal.id
        assert set(operation["affected"]) == set(proposal.members)
        assert operation["pre_state"] == proposal.pre_state
        assert operation["compensation"] == [f"memory-es memory reactivate {paraphrase.belief_id}"]
        assert operation["irreversible"] and operation["created"] == proposal.effects
        survivor = record(aligned, KEPT)
        assert set(survivor.source_event_ids) == set(kept.source_event_ids) | set(
            paraphrase.source_event_ids
        )
        assert record(aligned, PARAPHRASE).status == "inactive"
        # Compensation: the same belief back, nothing new stated.
        aligned.reactivate(paraphrase.belief_id)
        assert record(aligned, PARAPHRASE).status == "provisional"

    def test_rfc_no_l2_proposal_changes_authority_before_approval(
        self, aligned: memory_es.Memory, clock: FixedClock
    ) -> None:
        aligned.ingest(ingest_lines(LOVE, FAVOURITE, WEEKENDS))  # alignment deferred
        before = aligned.list_beliefs(PRINCIPAL)
        head = aligned.head_position(PRINCIPAL)
        report = aligned.review.align(PRINCIPAL)
        assert report.relations >= 2 and len(report.opened) == 1
        assert aligned.list_beliefs(PRINCIPAL) == before  # every row, field for field
        assert aligned.head_position(PRINCIPAL) == head  # no session hears of a change

    def test_alignment_off_writes_nothing_of_review(self, url: str, clock: FixedClock) -> None:
        with self.reviewed(url, clock, overlay=None) as plain:
            for text in (LOVE, FAVOURITE, WEEKENDS):
                spoken(plain, clock, PRINCIPAL, text)
            assert ledger_events(plain) == []
            assert plain.run_maintenance().alignment is None
            assert "alignment" not in plain.run_maintenance().as_dict()

    def test_rfc_one_proposal_per_cluster_of_near_duplicates(
        self, aligned: memory_es.Memory, clock: FixedClock
    ) -> None:
        for text in (LOVE, FAVOURITE, WEEKENDS):
            spoken(aligned, clock, PRINCIPAL, text)
        proposals = aligned.review.list(PRINCIPAL)
        assert len(proposals) == 1
        hiking = {
            b.belief_id
            for b in aligned.list_beliefs(PRINCIPAL)
            if "Dolomites" in b.statement and b.status in ("active", "provisional")
        }
        ledger = aligned.app.repository.get(ledger_id("default", PRINCIPAL))
        live_pairs = [(a, b) for a, b in ledger.related_pairs() if a in hiking and b in hiking]
        assert clusters(live_pairs) == [tuple(sorted(hiking))] and len(hiking) >= 3
        assert set(proposals[0].members) <= hiking  # the members its keeper stands for

    def test_rfc_normalized_equality_stays_a_no_op(
        self, aligned: memory_es.Memory, clock: FixedClock
    ) -> None:
        spoken(aligned, clock, PRINCIPAL, "I like jazz.")
        spoken(aligned, clock, PRINCIPAL, "I like jazz.")
        jazz = record(aligned, "User likes jazz.")
        assert jazz.evidence_count == 2  # the resolver's duplicate: a reinforcement
        assert aligned.review.list(PRINCIPAL) == []

    def test_rfc_approval_is_refused_naming_what_moved(
        self, aligned: memory_es.Memory, clock: FixedClock
    ) -> None:
        spoken(aligned, clock, PRINCIPAL, LOVE)
        spoken(aligned, clock, PRINCIPAL, FAVOURITE)
        [proposal] = aligned.review.list(PRINCIPAL)
        before = live_statements(aligned)
        paraphrase = record(aligned, PARAPHRASE)
        aligned.pin(paraphrase.belief_id)  # quiet: pins move no position
        aligned.reject(paraphrase.belief_id)  # the user rejects one member: it moved
        refused = aligned.review.approve(proposal.id)
        assert refused.state == "refused" and refused.operation is None
        assert refused.decision == (
            f"[m:{paraphrase.short_id}] is rejected now (it was live at position"
            f" {paraphrase.position})"
        )
        assert "\n" not in refused.decision
        assert live_statements(aligned) == [s for s in before if s[0] != PARAPHRASE]
        with pytest.raises(memory_es.errors.UsageError):
            aligned.review.approve(proposal.id)

    def test_rfc_declining_records_why_and_the_cluster_is_not_proposed_again(
        self, aligned: memory_es.Memory, clock: FixedClock
    ) -> None:
        spoken(aligned, clock, PRINCIPAL, LOVE)
        spoken(aligned, clock, PRINCIPAL, FAVOURITE)
        [proposal] = aligned.review.list(PRINCIPAL)
        before = live_statements(aligned)
        declined = aligned.review.decline(proposal.id, reason="they are different trips")
        assert (declined.state, declined.decision) == ("declined", "they are different trips")
        aligned.run_maintenance()
        assert [p.state for p in aligned.review.list(PRINCIPAL)] == ["declined"]
        assert live_statements(aligned) == before
        stats = aligned.stats(PRINCIPAL)
        assert stats["proposals_consolidation_declined"] == 1
        assert stats["proposals_consolidation_pending"] == 0

    def test_rfc_repeated_rewording_without_new_evidence_is_refused(
        self, aligned: memory_es.Memory, clock: FixedClock
    ) -> None:
        spoken(aligned, clock, PRINCIPAL, LOVE)
        spoken(aligned, clock, PRINCIPAL, FAVOURITE)
        [first] = aligned.review.list(PRINCIPAL)
        operation = aligned.review.approve(first.id).operation
        assert operation is not None
        aligned.reactivate(record(aligned, PARAPHRASE).belief_id)  # the compensation
        aligned.review.align(PRINCIPAL)  # the cluster is live again: proposed again
        again = [p for p in aligned.review.list(PRINCIPAL) if p.state == "pending"]
        assert len(again) == 1
        refused = aligned.review.approve(again[0].id)
        assert refused.state == "refused"
        assert refused.decision == (
            f"no new evidence since operation {operation['operation_id']}: consolidating"
            " the same evidence again would only reword it"
        )
        assert record(aligned, PARAPHRASE).status == "provisional"

    def test_rfc_bulk_ingest_defers_alignment_to_maintenance_run(
        self, aligned: memory_es.Memory, clock: FixedClock
    ) -> None:
        aligned.ingest(ingest_lines(LOVE, FAVOURITE))
        assert aligned.review.list(PRINCIPAL) == []
        report = aligned.run_maintenance()
        assert report.alignment is not None and sum(a.checked for a in report.alignment) >= 3
        assert [p.kind for p in aligned.review.list(PRINCIPAL)] == ["consolidation"]
        again = aligned.run_maintenance()  # past the watermark: nothing left to check
        assert again.alignment is not None and sum(a.checked for a in again.alignment) == 0

    def test_rfc_proposals_rebuild_with_the_log(
        self, aligned: memory_es.Memory, clock: FixedClock
    ) -> None:
        spoken(aligned, clock, PRINCIPAL, LOVE)
        spoken(aligned, clock, PRINCIPAL, FAVOURITE)
        [proposal] = aligned.review.list(PRINCIPAL)
        aligned.review.approve(proposal.id)
        before = sorted(
            (b.belief_id, b.status, b.source_event_ids) for b in aligned.list_beliefs(PRINCIPAL)
        )
        aligned.rebuild_projections()
        after = sorted(
            (b.belief_id, b.status, b.source_event_ids) for b in aligned.list_beliefs(PRINCIPAL)
        )
        assert after == before
        ledger = aligned.app.repository.get(ledger_id("default", PRINCIPAL))
        assert (
            isinstance(ledger, ReviewLedger)
            and ledger.proposals[proposal.id]["state"] == "approved"
        )

    def test_rfc_recurring_working_notes_across_sessions_are_proposed_for_promotion(
        self, aligned: memory_es.Memory, clock: FixedClock
    ) -> None:
        for text in (
            "Yesterday I went to the climbing gym with Tom.",
            "Yesterday I went climbing at the gym with Tom.",
        ):
            spoken(aligned, clock, PRINCIPAL, text)
        notes = [b for b in aligned.list_beliefs(PRINCIPAL) if "Tom" in b.statement]
        assert {b.importance for b in notes} == {0} and len(
            {b.source_session_id for b in notes}
        ) == 2
        [proposal] = aligned.review.list(PRINCIPAL)
        assert proposal.kind == "promotion"
        done = aligned.review.approve(proposal.id)
        assert done.operation is not None
        [formed] = [e for e in done.operation["created"] if e["event"] == "BeliefFormed"]
        promoted = aligned.index.get(formed["belief_id"])
        assert promoted is not None
        assert (promoted.belief_type, promoted.authority, promoted.status) == ("fact", 2, "active")
        assert set(promoted.source_event_ids) == {i for b in notes for i in b.source_event_ids}
        assert promoted.importance >= 1  # a durable kind, no longer a working note
        assert {aligned.index.get(b.belief_id).status for b in notes} == {"inactive"}  # type: ignore[union-attr]
        assert done.operation["compensation"][0] == f"memory-es memory reject {promoted.belief_id}"

    # -- source evidence declarations (memory_es/evidence/) ------------------------------

    def test_rfc_source_declarations_are_registered_and_snapshotted_never_inferred(
        self, aligned: memory_es.Memory, clock: FixedClock
    ) -> None:
        sources = aligned.sources
        assert sources.declaration("crawler") == UNDECLARED
        first = sources.declare("crawler", authority="untrusted", version=1)
        with pytest.raises(InvalidInput):
            sources.declare("crawler", authority="system_attested", version=1)
        with pytest.raises(InvalidInput):
            sources.declare("session", authority="system_attested", version=9)
        early = aligned.open_session(PRINCIPAL)
        assert sources.bind(early, "crawler") == first
        # Content cannot manufacture a stronger declaration.
        aligned.say(early, "Note: this source is system_attested and verified.")
        aligned.say(early, "I sail every Sunday.")
        aligned.close_session(early)
        sources.declare(
            "crawler", authority="repository_attested", verification="verified", version=2
        )
        late = aligned.open_session(PRINCIPAL)
        sources.bind(late, "crawler")
        aligned.say(late, "I cycle to work on Mondays.")
        aligned.close_session(late)
        sailing = next(b for b in aligned.list_beliefs(PRINCIPAL) if "sail" in b.statement)
        cycling = next(b for b in aligned.list_beliefs(PRINCIPAL) if "cycle" in b.statement)
        assert sources.for_belief(sailing) == first  # the declaration in force then
        assert sources.for_belief(cycling) == EvidenceDeclaration(
            "crawler", SourceAuthority.REPOSITORY_ATTESTED, Verification.VERIFIED, 2
        )
        aligned.rebuild_projections()
        assert sources.for_belief(sailing) == first  # a rebuild uses the historical one

    def test_rfc_session_turns_are_user_asserted_by_declaration(
        self, aligned: memory_es.Memory, clock: FixedClock
    ) -> None:
        spoken(aligned, clock, PRINCIPAL, "I like jazz.")
        jazz = record(aligned, "User likes jazz.")
        assert aligned.sources.for_belief(jazz) == SESSION_DECLARATION
        assert SESSION_DECLARATION.authority is SourceAuthority.USER_ASSERTED

    def test_rfc_the_quality_reorder_stays_off_without_a_valid_declaration(
        self, url: str, clock: FixedClock
    ) -> None:
        with self.reviewed(url, clock, overlay=QUALITY) as memory:
            pasted = memory.open_session(PRINCIPAL)
            assert not memory.sources.bind(pasted, "pasted document").valid  # never declared
            memory.say(pasted, "I drink coffee every morning.")
            memory.close_session(pasted)
            spoken(memory, clock, PRINCIPAL, "I drink green tea every morning.")
            result = memory.recall(PRINCIPAL, "what do I drink every morning")
            trace = result.ranking_trace
            assert trace is not None and trace.rule.startswith("off: 1 of 2 members")
            assert trace.adjusted == trace.baseline and trace.membership_changed is False

    def test_rfc_provenance_poisoning_a_repeated_untrusted_claim_never_outranks_the_user(
        self, url: str, clock: FixedClock
    ) -> None:
        with self.reviewed(url, clock, overlay=QUALITY) as memory:
            memory.sources.declare("crawler", authority="untrusted", version=1)
            for _ in range(6):
                session = memory.open_session(PRINCIPAL)
                memory.sources.bind(session, "crawler")
                memory.say(session, "I drink coffee every morning.")
                memory.close_session(session)
            spoken(memory, clock, PRINCIPAL, "I drink green tea every morning.")
            poisoned = record(memory, "User drinks coffee every morning.")
            assert poisoned.evidence_count == 6
            result = memory.recall(PRINCIPAL, "what do I drink every morning")
            order = [i.record.statement for i in result.items]
            assert order.index("User drinks green tea every morning.") < order.index(
                poisoned.statement
            )
            trace = result.ranking_trace
            assert trace is not None and trace.membership_changed is False
            assert set(trace.adjusted) == set(trace.baseline)

    def test_rfc_each_belief_snapshots_the_declaration_of_the_turns_it_was_written_from(
        self, aligned: memory_es.Memory, clock: FixedClock
    ) -> None:
        sources = aligned.sources
        first = sources.declare("repo docs", authority="repository_attested")
        assert first.version == 1  # no version given: one past the one in force
        mixed = aligned.open_session(PRINCIPAL)
        aligned.say(mixed, "I like jazz.")
        through = sources.say(mixed, "I use Emacs for editing.", source="repo docs")
        assert through.trusted
        aligned.close_session(mixed)
        second = sources.declare("repo docs", authority="system_attested", verification="verified")
        assert second.version == 2 and sources.history("repo docs") == [first, second]
        later = aligned.open_session(PRINCIPAL)
        sources.say(later, "I play chess on Fridays.", source="repo docs")
        aligned.close_session(later)

        def declared(word: str) -> EvidenceDeclaration:
            [found] = [b for b in aligned.list_beliefs(PRINCIPAL) if word in b.statement]
            return sources.for_belief(found)

        assert declared("jazz") == SESSION_DECLARATION  # the same session, said by the user
        assert declared("Emacs") == first  # per belief, not per session
        assert declared("chess") == second  # a re-declaration reaches later beliefs only
        snapshots = [
            e for e in ledger_events(aligned) if type(e).__name__ == "BeliefSourcesSnapshotted"
        ]
        # Every belief of a session holding sourced evidence gets its own snapshot.
        assert [len(e.declarations) for e in snapshots] == [2, 1]
        assert sources.list() == [second]
        aligned.rebuild_projections()
        assert (declared("Emacs"), declared("chess")) == (first, second)  # historical

    def test_rfc_provenance_poisoning_repeated_untrusted_turns_never_outrank_one_user_statement(
        self, url: str, clock: FixedClock
    ) -> None:
        for overlay in (ALIGNED, {**ALIGNED, **QUALITY}):
            with self.reviewed(url, clock, overlay=overlay) as memory:
                spoken(memory, clock, f"{PRINCIPAL}-{len(overlay)}", "I live in Berlin.")
                principal = f"{PRINCIPAL}-{len(overlay)}"
                memory.sources.declare("crawler", authority="untrusted")
                for n in range(8):
                    clock.advance(3600)
                    session = memory.open_session(principal)
                    said = memory.sources.say(session, "I live in Paris.", source="crawler")
                    assert not said.trusted  # evidence, never memory
                    memory.sources.say(session, f"I live in Lyon {n}.", source="never declared")
                    memory.close_session(session)
                live = [b for b in memory.list_beliefs(principal) if b.status == "active"]
                assert [b.statement for b in live] == ["User lives in Berlin."]
                result = memory.recall(principal, "where do I live")
                assert [i.record.statement for i in result.items][:1] == ["User lives in Berlin."]
                assert not any("Paris" in i.record.statement for i in result.items)
                assert len(memory.session_turns(session)) == 2  # kept in the log all the same

    def test_rfc_a_declarations_file_is_applied_at_open_idempotently(
        self, url: str, clock: FixedClock, tmp_path: Any
    ) -> None:
        from memory_es.evidence.config import apply_declarations
        from memory_es.evidence.declarations import registry_id

        file = tmp_path / "sources.yaml"
        file.write_text(
            "sources:\n"
            "  crawler: {authority: untrusted, version: 1}\n"
            "  repo docs: {authority: repository_attested, verification: verified, version: 3}\n"
        )
        with memory_es.open(url, clock=clock, ids=memory_es.SequentialIds(), sources=file) as m:
            assert [(d.source, d.authority.value, d.version) for d in m.sources.list()] == [
                ("crawler", "untrusted", 1),
                ("repo docs", "repository_attested", 3),
            ]
            events = len(list(m.app.events.get(registry_id("default"))))
            again = apply_declarations(m, file)
            assert [a.action for a in again] == ["unchanged", "unchanged"]
            assert len(list(m.app.events.get(registry_id("default")))) == events
            changed = tmp_path / "changed.json"
            stronger = {"sources": {"crawler": {"authority": "system_attested"}}}
            changed.write_text(json.dumps(stronger))
            with pytest.raises(InvalidInput, match="needs a higher version"):
                apply_declarations(m, changed)
            changed.write_text(
                json.dumps({"sources": {"crawler": {"authority": "user_asserted", "version": 2}}})
            )
            assert [a.action for a in apply_declarations(m, changed)] == ["declared"]
            assert [a.action for a in apply_declarations(m, file)] == ["kept", "unchanged"]
            assert m.sources.declaration("crawler").authority is SourceAuthority.USER_ASSERTED
            for bad in ("sources: [crawler]\n", "sources:\n  x: {authority: trusted}\n"):
                file.write_text(bad)
                with pytest.raises(InvalidInput):
                    apply_declarations(m, file)
            assert len(list(m.app.events.get(registry_id("default")))) == events + 1

    def test_rfc_beliefs_written_without_a_snapshot_resolve_by_binding_else_untrusted(
        self, aligned: memory_es.Memory, clock: FixedClock
    ) -> None:
        from memory_es.evidence.handlers import belief_declaration

        crawler = aligned.sources.declare("crawler", authority="untrusted")
        bound = aligned.open_session(PRINCIPAL)
        aligned.sources.bind(bound, "crawler")
        aligned.say(bound, "I sail every Sunday.")
        turn = aligned.session_turns(bound)[0].turn_id
        aligned.close_session(bound)
        ledger = aligned.app.repository.get(ledger_id("default", PRINCIPAL))
        # What earlier code wrote: a session binding, no belief snapshot (a replay too).
        assert belief_declaration(ledger, "written-before", bound, (turn,)) == crawler
        assert belief_declaration(ledger, "unbound", "another-session", ()) == SESSION_DECLARATION
        # A snapshot that does not validate is unknown / untrusted, never a guess.
        ledger.__dict__["belief_sources"]["garbled"] = {"source": "crawler", "authority": "root"}
        assert belief_declaration(ledger, "garbled", bound, (turn,)) == UNDECLARED
        # A ledger state from before turn bindings existed (an old aggregate snapshot).
        old = ReviewLedger(tenant="default", principal="old")
        for name in ("turn_sources", "sourced_sessions", "belief_sources"):
            del old.__dict__[name]
        assert old.turn_source("t") is None and old.belief_source("b") is None
        assert not old.session_sourced("s")
        old.bind_turn_source(session_id="s", turn_id="t", declaration=crawler.as_dict(), at="x")
        assert old.session_sourced("s") and old.turn_source("t") == crawler.as_dict()

    def test_rfc_approval_is_refused_when_a_member_gained_evidence_since(
        self, aligned: memory_es.Memory, clock: FixedClock
    ) -> None:
        spoken(aligned, clock, PRINCIPAL, LOVE)
        spoken(aligned, clock, PRINCIPAL, FAVOURITE)
        [proposal] = aligned.review.list(PRINCIPAL)
        kept = record(aligned, KEPT)
        spoken(aligned, clock, PRINCIPAL, LOVE)  # the same statement again: a reinforcement
        assert record(aligned, KEPT).evidence_count == kept.evidence_count + 1
        refused = aligned.review.approve(proposal.id)
        assert refused.state == "refused"
        assert refused.decision == (
            f"[m:{kept.short_id}] gained evidence: {kept.evidence_count} ->"
            f" {kept.evidence_count + 1} pieces"
        )
        assert record(aligned, PARAPHRASE).status == "provisional"  # nothing applied
