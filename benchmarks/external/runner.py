"""Record an external dataset into memory_es and measure evidence-provenance recall.

Per scenario (a LoCoMo conversation, a LongMemEval question, a HaluMem user) the driver
opens a fresh in-process store with a fixed clock and sequential ids, records every
session once per principal through the public API (``open_session``/``say``/
``close_session``, the clock set from the dataset's dates), keeps the dataset-turn ->
turn-id map from the :class:`TurnReceipt` each ``say`` returns, and asks each probe
with ``memory.recall(principal, question, limit=k)`` for k = 5, 10, 20. Beside it, a
raw-turn BM25 reference over the same turns (the principal's own, and all) is scored
the same way. The store is closed before the next scenario: memory stays bounded.
"""

from __future__ import annotations

import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import memory_es
from memory_es.benchmarks.external import load_halumem, load_locomo, load_longmemeval
from memory_es.benchmarks.external.bm25 import BM25, Doc, make_doc
from memory_es.benchmarks.external.diagnostic import DIAGNOSTIC_EXTRACTORS
from memory_es.benchmarks.external.jsonstream import file_sha256
from memory_es.benchmarks.external.metrics import KS, ArmReport, Outcome, answer_rendered, judge
from memory_es.benchmarks.external.model import LoadReport, Probe, Scenario
from memory_es.errors import MemoryEsError
from memory_es.formation.extractor import Extractor
from memory_es.maintenance import MaintenanceReport
from memory_es.policy import formation_policy, retrieval_policy
from memory_es.retrieval.ranking import Scored
from memory_es.retrieval.recall import RecallResult
from memory_es.retrieval.tokenizer import lexemes

DATASETS = ("longmemeval", "locomo", "halumem")
LICENCES = {
    "longmemeval": load_longmemeval.LICENCE,
    "locomo": load_locomo.LICENCE,
    "halumem": load_halumem.LICENCE,
}
# A session with no readable date starts a day after the one before it.
_DEFAULT_START = datetime(2023, 1, 1, tzinfo=UTC)
_TURN_SPACING = timedelta(seconds=30)
MEMORY_ARM = "memory"
REFERENCE_ARMS = ("bm25_own_turns", "bm25_all_turns")
# The memory arm on the evidence the lifecycle promises to keep (_protected): turns
# whose statement was made again, and turns whose belief was cited (with --cite). Recall
# on them must not fall under --maintenance (docs/lifecycle.md).
RESTATED = "evidence_restated"
CITED = "evidence_cited"

CAVEATS = (
    "Evidence-provenance recall scores retrieval, not answers: no model and no judge.",
    "Published LongMemEval figures use a model judge; these do not.",
    "The extractor is memory_es's deterministic one; beliefs form only from what it "
    "recognises in the principal's own turns.",
    "--sample draws from the overall population (sample_drawn gives its counts); "
    "single-session-assistant, abstention, adversarial and cross-speaker questions are "
    "reported outside overall, and only when no sample is drawn.",
    "The BM25 reference retrieves raw turns, not beliefs; it is a yardstick, not an arm.",
)


def load(
    dataset: str, path: Path, report: LoadReport, *, principal_speaker: str
) -> Iterator[Scenario]:
    if dataset == "locomo":
        return load_locomo.load(path, report, principal_speaker=principal_speaker)
    if dataset == "longmemeval":
        return load_longmemeval.load(path, report)
    if dataset == "halumem":
        return load_halumem.load(path, report)
    raise ValueError(f"unknown dataset {dataset!r}: use one of {', '.join(DATASETS)}")


@dataclass
class Counts:
    scenarios: int = 0
    sessions: int = 0
    turns_recorded: int = 0
    source_turns: int = 0
    beliefs_formed: int = 0
    labeled_beliefs: int = 0
    labeled_supersessions: int = 0
    unresolved_supersessions: int = 0
    failed_turns: Counter[str] = field(default_factory=Counter)
    formation: Counter[str] = field(default_factory=Counter)
    # With --maintenance: what the maintenance run after each session did (docs/lifecycle.md).
    lifecycle: Counter[str] = field(default_factory=Counter)
    extractor: str = ""


# What ``_score_memory`` returns: per k, each returned item's belief id and source ids,
# and the tokens rendered.
Returned = dict[int, tuple[list[tuple[str, frozenset[str]]], int]]


@dataclass(frozen=True)
class ReplayHooks:
    """Optional observers of one scenario's replay, for a caller that measures the same
    replay and scoring under its own conditions (the review benchmark's LoCoMo arms,
    memory_es/benchmarks/review/locomo.py). Unset, the replay is what it always was.

    ``before_probes(memory, principals)`` runs once before each batch of probes is
    asked (after that session's recording and maintenance): a reviewer's moment.
    ``returned(probe, returned, turn_refs)`` sees what each probe returned, with the map
    from every recorded turn id to its dataset turn ref."""

    before_probes: Callable[[memory_es.Memory, tuple[str, ...]], None] | None = None
    returned: Callable[[Probe, Returned, dict[str, str]], None] | None = None


@dataclass
class _Recording:
    """The ids one principal's recording gave each dataset turn and session."""

    turn_ids: dict[str, str] = field(default_factory=dict)
    session_turn_ids: dict[str, list[str]] = field(default_factory=dict)


def run(
    dataset: str,
    path: Path,
    output: Path,
    *,
    sample: int | None = None,
    seed: int = 0,
    principal_speaker: str = "both",
    progress: bool = True,
    diagnostic_extractor: str | None = None,
    profile: Path | None = None,
    maintenance: bool = False,
    cite: bool = False,
) -> dict[str, Any]:
    """Run one dataset and write its metrics file; returns the metrics document.

    ``cite`` adds the citing reader (:func:`_cite`): usage feedback in the replay.

    ``diagnostic_extractor="verbatim"`` swaps formation for one belief per user turn
    (:mod:`benchmarks.external.diagnostic`): a diagnostic of the recall stack, named in
    the file, never the memory arm's figure.

    Raises ``FileNotFoundError`` for a missing file, ``FileExistsError`` for an existing
    output (never overwritten), ``MalformedDataset`` for a file of the wrong shape.
    """
    if dataset not in DATASETS:
        raise ValueError(f"unknown dataset {dataset!r}: use one of {', '.join(DATASETS)}")
    if principal_speaker not in load_locomo.SPEAKER_CHOICES:
        raise ValueError("--principal-speaker must be a, b or both")
    if dataset != "locomo" and principal_speaker != "both":
        raise ValueError("--principal-speaker applies to locomo only")
    if diagnostic_extractor is not None and diagnostic_extractor not in DIAGNOSTIC_EXTRACTORS:
        raise ValueError(
            f"unknown diagnostic extractor {diagnostic_extractor!r}:"
            f" use {' or '.join(sorted(DIAGNOSTIC_EXTRACTORS))}"
        )
    if sample is not None and sample < 1:
        raise ValueError("--sample must be at least 1")
    if not path.is_file():
        raise FileNotFoundError(f"no dataset file at the given path: {path.name}")
    if output.exists():
        raise FileExistsError(f"output exists and is never overwritten: {output}")

    started = time.perf_counter()
    digest = file_sha256(path)

    # Pass 1 (only when sampling): which probes count in the overall figure, so a seeded
    # sample is drawn from that population without holding the file (only probe ids and
    # categories are kept). Probes reported separately are not drawn: a sample of N is N
    # overall probes, whatever share of the file the separate categories hold.
    selected: set[str] | None = None
    eligible: int | None = None
    drawn: dict[str, Any] | None = None
    if sample is not None:
        population = {
            p.probe_id: p.category
            for s in load(dataset, path, LoadReport(), principal_speaker=principal_speaker)
            for p in s.probes
            if p.in_overall
        }
        ids = sorted(population)
        selected = set(ids if sample >= len(ids) else random.Random(seed).sample(ids, sample))
        eligible = len(selected)
        drawn = {
            "population": len(ids),
            "drawn": len(selected),
            "categories": dict(sorted(Counter(population[i] for i in selected).items())),
        }

    report = LoadReport()
    counts = Counts()
    arms = new_arms()
    # The memory arm runs whatever extractor memory_es.open composes by default.
    diagnostic = DIAGNOSTIC_EXTRACTORS.get(diagnostic_extractor or "")
    bar = _progress_bar(progress, total=eligible)
    loaded = 0
    for scenario in load(dataset, path, report, principal_speaker=principal_speaker):
        loaded += len(scenario.probes)
        probes = [p for p in scenario.probes if selected is None or p.probe_id in selected]
        if not probes:
            continue
        extractor = diagnostic() if diagnostic else None
        _run_scenario(scenario, probes, arms, counts, extractor, profile, maintenance, cite)
        bar(len(probes))
    bar(None)

    memory_figures = arms[MEMORY_ARM].figures()
    document: dict[str, Any] = {
        "dataset": dataset,
        "licence": LICENCES[dataset],
        "file_sha256": digest,
        "sample": sample,
        "sample_drawn": drawn,
        "seed": seed,
        "n": memory_figures["overall"]["n"],
        "overall": memory_figures["overall"],
        "categories": memory_figures["categories"],
        "reference": {name: arms[name].figures() for name in REFERENCE_ARMS},
        "subsets": {name: arms[name].overall().figures() for name in (RESTATED, CITED)},
        "mapping": _mapping(dataset, principal_speaker),
        "counts": {
            "scenarios": counts.scenarios,
            "sessions": counts.sessions,
            "turns_recorded": counts.turns_recorded,
            "source_turns": counts.source_turns,
            "beliefs_formed": counts.beliefs_formed,
            "formation": dict(sorted(counts.formation.items())),
            "labeled_beliefs": counts.labeled_beliefs,
            "labeled_supersessions": counts.labeled_supersessions,
            "unresolved_supersessions": counts.unresolved_supersessions,
            "turns_refused_by_store": dict(sorted(counts.failed_turns.items())),
            "eligible_probes": loaded,
            "probes_scored": sum(t.n for t in arms[MEMORY_ARM].categories.values()),
            "lifecycle": dict(sorted(counts.lifecycle.items())),
        },
        "skipped": dict(sorted(report.skipped.items())),
        "quirks_tolerated": dict(sorted(report.quirks.items())),
        "policy": {
            "formation": formation_policy(),
            "retrieval": retrieval_policy(),
            "extractor": counts.extractor,
            "diagnostic": diagnostic_extractor is not None,
            "maintenance_after_each_session": maintenance,
            "citing_reader": cite,
            "ks": list(KS),
        },
        "caveats": list(CAVEATS),
        "wall_seconds": round(time.perf_counter() - started, 1),
    }
    _write_new(output, document)
    return document


def new_arms() -> dict[str, ArmReport]:
    """The arms one replay scores into: the memory arm, its protected subsets, BM25."""
    return {
        MEMORY_ARM: ArmReport(),
        RESTATED: ArmReport(),
        CITED: ArmReport(),
        **{name: ArmReport() for name in REFERENCE_ARMS},
    }


def replay_scenario(
    scenario: Scenario,
    probes: list[Probe],
    arms: dict[str, ArmReport],
    counts: Counts,
    *,
    profile: Path | None = None,
    maintenance: bool = False,
    hooks: ReplayHooks | None = None,
) -> None:
    """:func:`run`'s replay and scoring of one scenario (the default extractor, no
    citing reader) into ``arms`` (:func:`new_arms`), for callers that measure it under
    their own conditions; ``hooks`` observe it."""
    _run_scenario(scenario, probes, arms, counts, None, profile, maintenance, False, hooks)


def _mapping(dataset: str, principal_speaker: str) -> dict[str, Any]:
    if dataset == "locomo":
        return {
            "principal_speaker": principal_speaker,
            "other_speaker": "non-source (assistant) turns",
            "scored": "questions whose evidence lies in a principal's own turns",
            "reported_separately": sorted(load_locomo.SEPARATE),
        }
    if dataset == "longmemeval":
        return {
            "principal": "user",
            "assistant_turns": "non-source",
            "reported_separately": sorted(load_longmemeval.SEPARATE),
        }
    return {
        "principal": "user",
        "assistant_turns": "non-source",
        "memory_points": "labelled beliefs; is_update -> labelled supersession",
        "evidence": "session granularity (memory points name no turn)",
        "reported_separately": sorted(load_halumem.SEPARATE),
    }


def _write_new(output: Path, document: dict[str, Any]) -> None:
    import json

    text = json.dumps(document, indent=2, sort_keys=True) + "\n"
    output.parent.mkdir(parents=True, exist_ok=True)
    with output.open("x", encoding="utf-8") as handle:  # "x": never overwrite
        handle.write(text)


def _progress_bar(enabled: bool, total: int | None) -> Callable[[int | None], None]:
    from tqdm import tqdm

    bar = tqdm(
        total=total,
        unit="probe",
        file=sys.stderr,
        disable=not (enabled and sys.stderr.isatty()),
        leave=False,
    )

    def step(n: int | None) -> None:
        if n is None:
            bar.close()
        else:
            bar.update(n)

    return step


def _run_scenario(
    scenario: Scenario,
    probes: list[Probe],
    arms: dict[str, ArmReport],
    counts: Counts,
    extractor: Extractor | None,
    profile: Path | None = None,
    maintenance: bool = False,
    cite: bool = False,
    hooks: ReplayHooks | None = None,
) -> None:
    counts.scenarios += 1
    counts.labeled_beliefs += len(scenario.labeled_beliefs)
    counts.labeled_supersessions += sum(len(b.supersedes) for b in scenario.labeled_beliefs)
    counts.unresolved_supersessions += scenario.unresolved_supersessions
    last_needed = max(p.after_session for p in probes)
    by_session: dict[int, list[Probe]] = {}
    for probe in probes:
        by_session.setdefault(probe.after_session, []).append(probe)

    first = next((s.at for s in scenario.sessions if s.at is not None), None)
    clock = memory_es.FixedClock(first or _DEFAULT_START)
    recordings = {p: _Recording() for p in scenario.principals}
    docs: list[tuple[str, Doc]] = []  # (speaker, doc) of every recorded dataset turn
    session_refs: dict[str, list[str]] = {}
    previous: datetime | None = None
    indexes: dict[tuple[int, tuple[str, ...]], BM25] = {}
    ids = memory_es.SequentialIds()
    with memory_es.open(
        "memory://", clock=clock, ids=ids, extractor=extractor, profile=profile
    ) as memory:
        counts.extractor = memory.extractor.name
        for index, session in enumerate(scenario.sessions[: last_needed + 1]):
            at = session.at or ((previous + timedelta(days=1)) if previous else clock.now())
            previous = at
            counts.sessions += 1
            recorded_refs: set[str] = set()
            for principal in scenario.principals:
                recording = recordings[principal]
                clock.set(at)
                session_id = memory.open_session(principal)
                turn_ids = recording.session_turn_ids.setdefault(session.ref, [])
                cited: set[str] = set()
                for position, turn in enumerate(session.turns, start=1):
                    # A turn's own time when the dataset gives one, never before its
                    # session opened; otherwise 30 s after the turn before it.
                    spaced = at + position * _TURN_SPACING
                    clock.set(max(turn.at, at) if turn.at is not None else spaced)
                    role = "user" if turn.speaker == principal else "assistant"
                    try:
                        receipt = memory.say(session_id, turn.text, role=role)
                    except MemoryEsError as error:
                        counts.failed_turns[type(error).__name__] += 1
                        continue
                    recording.turn_ids[turn.ref] = receipt.turn_id
                    turn_ids.append(receipt.turn_id)
                    recorded_refs.add(turn.ref)
                    counts.turns_recorded += 1
                    counts.source_turns += role == "user"
                    if cite and role == "user":
                        cited |= _cite(memory, session_id, turn.text)
                clock.set(max(clock.now(), at + (len(session.turns) + 1) * _TURN_SPACING))
                if cite:
                    final = " ".join(f"[m:{short_id}]" for short_id in sorted(cited))
                    usage = memory.record_usage(session_id, f"{session.ref}/{principal}", final)
                    counts.lifecycle["citations"] += len(usage.cited)
                    counts.lifecycle["citations_ambiguous"] += len(usage.ambiguous)
                counts.formation.update(memory.close_session(session_id).counts.as_dict())
            if maintenance:
                # The dataset's own clock, after the session: decay, L1, trace expiry.
                _count_maintenance(memory.run_maintenance(), counts.lifecycle)
            refs = session_refs.setdefault(session.ref, [])
            for turn in session.turns:
                if turn.ref in recorded_refs:
                    refs.append(turn.ref)
                    docs.append((turn.speaker, make_doc(turn.ref, turn.text)))
            asked = by_session.get(index, [])
            turn_refs: dict[str, str] = {}
            if hooks is not None and asked:
                if hooks.before_probes is not None:
                    hooks.before_probes(memory, scenario.principals)
                turn_refs = {
                    turn_id: ref
                    for recording in recordings.values()
                    for ref, turn_id in recording.turn_ids.items()
                }
            for probe in asked:
                if probe.asked_at is not None:  # asked at the dataset's question date
                    clock.set(max(clock.now(), probe.asked_at))
                returned = _score_memory(memory, probe, recordings, arms[MEMORY_ARM])
                if hooks is not None and hooks.returned is not None:
                    hooks.returned(probe, returned, turn_refs)
                for name, (units, kept) in _protected(memory, probe, recordings).items():
                    if units:
                        # Met by a returned belief the lifecycle promised to keep.
                        outcomes = {
                            k: judge(
                                units,
                                [sources for belief_id, sources in items if belief_id in kept],
                                tokens=tokens,
                            )
                            for k, (items, tokens) in returned.items()
                        }
                        arms[name].add(probe.category, probe.in_overall, outcomes, len(units), 0)
                _score_reference(probe, docs, session_refs, arms, indexes)
        counts.beliefs_formed += sum(
            sum(1 for b in memory.list_beliefs(p) if b.status != "superseded")
            for p in scenario.principals
        )


def _count_maintenance(report: MaintenanceReport, counts: Counter[str]) -> None:
    counts["maintenance_runs"] += 1
    counts["decay_eligible"] += report.decay.eligible
    counts["decayed"] += len(report.decay.decayed)
    counts["retired"] += len(report.decay.retired)
    counts["l1_candidates"] += len(report.l1.candidates)
    counts["deactivated"] += len(report.l1.deactivated)


def _units(
    probe: Probe,
    turn_ids: Callable[[str], list[str]],
    session_ids: Callable[[str], list[str]],
) -> list[frozenset[str]]:
    units: list[frozenset[str]] = []
    for e in probe.evidence:
        ids = turn_ids(e.turn_ref) if e.turn_ref is not None else session_ids(e.session_ref)
        units.append(frozenset(ids))
    return units


def _unit_counts(probe: Probe) -> tuple[int, int]:
    turn = sum(1 for e in probe.evidence if e.turn_ref is not None)
    return turn, len(probe.evidence) - turn


def _cite(memory: memory_es.Memory, session_id: str, text: str) -> set[str]:
    """The citing reader: the context pack an agent would get for this user turn, and
    the short ids of the beliefs it shows (snapshot, recall, delta) that it would cite:
    those whose subject the turn names (the conversation came back to what the belief is
    about). Deterministic and model-free, a stand-in for a completed run's final message,
    so the replay exercises usage feedback (``record_usage``) as well as evidence."""
    said = " ".join(lexemes(text))
    pack = memory.context(session_id, text)
    out: set[str] = set()
    for item in (*pack.snapshot, *pack.recall, *pack.delta):
        record = memory.index.get(item.belief_id)
        if record is not None and any(
            f" {subject} " in f" {said} "
            for subject in (" ".join(lexemes(s)) for s in record.subjects)
            if subject
        ):
            out.add(record.short_id)
    return out


def _protected(
    memory: memory_es.Memory, probe: Probe, recordings: dict[str, _Recording]
) -> dict[str, tuple[list[frozenset[str]], set[str]]]:
    """What the lifecycle promises to keep of the probe's evidence, per subset: the
    evidence turns as units, and the beliefs (of any status) formed from them that
    either stand on more than one turn — the statement was made again (``RESTATED``) —
    or were cited, having a last use (``CITED``). A subset's unit is met only by one of
    its beliefs, so a turn that formed a re-stated belief and a one-off one counts the
    re-stated one alone, and a multi-hop question only its re-stated or cited evidence."""
    found: dict[str, tuple[set[str], set[str]]] = {RESTATED: (set(), set()), CITED: (set(), set())}
    for principal in probe.principals:
        turn_ids = recordings[principal].turn_ids
        evidence = {
            turn_ids[e.turn_ref]
            for e in probe.evidence
            if e.turn_ref is not None and e.turn_ref in turn_ids
        }
        if not evidence:
            continue
        for b in memory.list_beliefs(principal):
            hit = evidence.intersection(b.source_event_ids)
            for name, member in (
                (RESTATED, len(b.source_event_ids) > 1),
                (CITED, b.last_used_at is not None),
            ):
                if hit and member:
                    found[name][0].update(hit)
                    found[name][1].add(b.belief_id)
    return {
        name: ([frozenset({t}) for t in sorted(turns)], kept)
        for name, (turns, kept) in found.items()
    }


def _score_memory(
    memory: memory_es.Memory, probe: Probe, recordings: dict[str, _Recording], arm: ArmReport
) -> Returned:
    """Score the probe into ``arm``; returns, per k, what was returned (each item's
    belief id and source ids) and its rendered tokens."""
    chosen = [recordings[p] for p in probe.principals]
    units = _units(
        probe,
        lambda ref: [r.turn_ids[ref] for r in chosen if ref in r.turn_ids],
        lambda ref: [i for r in chosen for i in r.session_turn_ids.get(ref, [])],
    )
    outcomes: dict[int, Outcome] = {}
    returned: Returned = {}
    for k in KS:
        items: list[Scored] = []
        for principal in probe.principals:
            items.extend(memory.recall(principal, probe.question, limit=k).items)
        if len(probe.principals) > 1:
            # A cross-speaker probe reads both principals: one top-k over both, in the
            # ranking function's own order, so k means k items whatever the principals.
            items.sort(key=lambda s: (-s.score, -s.record.position, s.record.belief_id))
            items = items[:k]
        sources = [frozenset(s.record.source_event_ids) for s in items]
        rendered = RecallResult(query=probe.question, terms=(), items=tuple(items)).lines()
        tokens = sum(len(line.split()) for line in rendered)
        outcomes[k] = judge(
            units,
            sources,
            tokens=tokens,
            answer_found=answer_rendered(probe.answer, "\n".join(rendered)),
        )
        returned[k] = (
            [(s.record.belief_id, frozenset(s.record.source_event_ids)) for s in items],
            tokens,
        )
    arm.add(probe.category, probe.in_overall, outcomes, *_unit_counts(probe))
    return returned


def _score_reference(
    probe: Probe,
    docs: list[tuple[str, Doc]],
    session_refs: dict[str, list[str]],
    arms: dict[str, ArmReport],
    indexes: dict[tuple[int, tuple[str, ...]], BM25],
) -> None:
    units = _units(probe, lambda ref: [ref], lambda ref: session_refs.get(ref, []))
    # One index per corpus and per number of turns recorded so far, reused by probes.
    for name, speakers in (("bm25_own_turns", probe.principals), ("bm25_all_turns", ())):
        key = (len(docs), tuple(sorted(speakers)))
        index = indexes.get(key)
        if index is None:
            corpus = [d for speaker, d in docs if not speakers or speaker in speakers]
            index = indexes[key] = BM25(corpus)
        outcomes: dict[int, Outcome] = {}
        for k in KS:
            top = index.top(probe.question, k)
            tokens = sum(len(d.text.split()) for d in top)
            outcomes[k] = judge(
                units,
                [frozenset({d.ref}) for d in top],
                tokens=tokens,
                answer_found=answer_rendered(probe.answer, "\n".join(d.text for d in top)),
            )
        arms[name].add(probe.category, probe.in_overall, outcomes, *_unit_counts(probe))
