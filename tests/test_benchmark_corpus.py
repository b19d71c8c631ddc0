"""gate.memory.bench_corpus_shape: the memory benchmark corpus is shaped as declared, and a corpus
that
breaks any rule is refused."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest

from memory_es.benchmarks.memory_benchmark.corpus import (
    CATEGORIES,
    SHIPPED_CORPUS,
    CorpusError,
    load_corpus,
    parse_corpus,
)

Doc = dict[str, Any]


def test_bench_corpus_shape_corpus_is_shaped_as_declared() -> None:
    loaded = load_corpus()
    corpus = loaded.corpus
    assert len(loaded.sha256) == 64
    assert len(corpus.scenarios) >= 12
    assert all(len(s.sessions) >= 2 for s in corpus.scenarios)
    per_category = Counter(p.category for s in corpus.scenarios for p in s.probes)
    assert all(per_category[c] >= 3 for c in CATEGORIES), per_category
    assert sum(1 for s in corpus.scenarios if s.has_protected_abstention()) >= 4


def test_bench_corpus_shape_corpus_v1_has_the_declared_coverage() -> None:
    corpus = load_corpus().corpus
    scenarios = corpus.scenarios
    # Sixteen scenarios of the seed, six written in natural phrasing, seven currency
    # families (switches of any subject, natural corrections and the remember tool's
    # authority among them), one of dated episodes, and two more for the remember tool
    # read like a turn and a retraction of any type, each before the rules that read
    # them; the seed's cap of eighty probes raised to 130, as its open question 2 allows
    # once the arm proves fast (the run takes seconds).
    assert len(scenarios) == 32
    assert all(3 <= len(s.probes) <= 5 for s in scenarios)
    assert sum(len(s.probes) for s in scenarios) <= 130
    assert sum(1 for s in scenarios if len(s.scopes()) >= 2) >= 4
    spans = [s.timeline().end - s.start_at for s in scenarios]
    assert sum(1 for span in spans if span >= timedelta(days=45)) >= 4
    assert any(span > timedelta(days=90) for span in spans)
    assert len({s.start_at for s in scenarios}) == len(scenarios)
    # The seed's two worked scenarios are part of it.
    ids = {s.id for s in scenarios}
    assert {"mb-relocation-update-001", "mb-project-transfer-protected-001"} <= ids


def _shipped() -> Doc:
    document: Doc = json.loads(SHIPPED_CORPUS.read_text())
    return document


def _scenario(doc: Doc, scenario_id: str) -> Doc:
    found: Doc = next(s for s in doc["scenarios"] if s["id"] == scenario_id)
    return found


def _item(items: list[Doc], key: str, value: str) -> Doc:
    found: Doc = next(i for i in items if i[key] == value)
    return found


RELOCATION = "mb-relocation-update-001"
TRANSFER = "mb-project-transfer-protected-001"
FAMILY = "mb-family-household-001"


def reloc(doc: Doc) -> Doc:
    return _scenario(doc, RELOCATION)


def xfer(doc: Doc) -> Doc:
    return _scenario(doc, TRANSFER)


def probe(scenario: Doc, probe_id: str) -> Doc:
    return _item(scenario["probes"], "id", probe_id)


def belief(scenario: Doc, label: str) -> Doc:
    return _item(scenario["beliefs"], "label", label)


def _drop_category(doc: Doc, category: str) -> None:
    for scenario in doc["scenarios"]:
        scenario["probes"] = [p for p in scenario["probes"] if p["category"] != category]


def _unprotect(doc: Doc, *scenario_ids: str) -> None:
    for scenario_id in scenario_ids:
        _scenario(doc, scenario_id)["protected_statements"] = []


MUTATIONS: dict[str, tuple[Callable[[Doc], object], str]] = {
    # frozen models forbid unknown fields, at every level
    "unknown corpus field": (lambda d: d.update(notes="x"), "Extra inputs"),
    "unknown scenario field": (lambda d: reloc(d).update(notes="x"), "Extra inputs"),
    "unknown session field": (lambda d: reloc(d)["sessions"][0].update(scope="x"), "Extra inputs"),
    "unknown turn field": (
        lambda d: reloc(d)["sessions"][0]["turns"][0].update(role="user"),
        "Extra inputs",
    ),
    "unknown belief field": (lambda d: reloc(d)["beliefs"][0].update(polarity=True), "Extra"),
    "unknown probe field": (lambda d: probe(reloc(d), "p01").update(hint="x"), "Extra inputs"),
    "unknown answer field": (
        lambda d: probe(reloc(d), "p01")["answer"].update(score=1),
        "Extra inputs",
    ),
    # shapes and identifiers
    "schema version 2": (lambda d: d.update(schema_version=2), "schema_version"),
    "eleven scenarios": (lambda d: d.update(scenarios=d["scenarios"][:11]), "at least 12"),
    "one session": (
        lambda d: _scenario(d, FAMILY).update(sessions=_scenario(d, FAMILY)["sessions"][:1]),
        "at least 2",
    ),
    "no probes": (lambda d: reloc(d).update(probes=[]), "at least 1"),
    "seven probes": (
        lambda d: reloc(d).update(probes=reloc(d)["probes"] + reloc(d)["probes"][:3]),
        "at most 6",
    ),
    "bad scenario id": (lambda d: reloc(d).update(id="Relocation-1"), "pattern"),
    "bad session id": (lambda d: reloc(d)["sessions"][0].update(id="session-1"), "pattern"),
    "bad probe id": (lambda d: probe(reloc(d), "p01").update(id="q1"), "pattern"),
    "bad label": (
        lambda d: belief(reloc(d), "home_seattle").update(label="Home-Seattle"),
        "pattern",
    ),
    "bad project scope": (
        lambda d: xfer(d)["sessions"][0].update(project_scope="Veet Bot"),
        "pattern",
    ),
    "naive start_at": (lambda d: reloc(d).update(start_at="2026-03-02T09:00:00"), "timezone"),
    "negative session advance": (
        lambda d: reloc(d)["sessions"][1].update(advance_seconds=-1),
        "greater than or equal",
    ),
    "negative turn advance": (
        lambda d: reloc(d)["sessions"][0]["turns"][0].update(advance_seconds=-5),
        "greater than or equal",
    ),
    "negative probe advance": (
        lambda d: probe(reloc(d), "p01").update(advance_seconds=-1),
        "greater than or equal",
    ),
    "advance given as text": (
        lambda d: reloc(d)["sessions"][1].update(advance_seconds="259200"),
        "valid integer",
    ),
    "blank forbidden statement": (
        lambda d: probe(reloc(d), "p01").update(
            forbidden_statements=["User lives in Seattle.", "!"]
        ),
        "blank",
    ),
    "empty turn text": (
        lambda d: reloc(d)["sessions"][0]["turns"][0].update(text=""),
        "at least 1",
    ),
    "session without turns": (lambda d: reloc(d)["sessions"][0].update(turns=[]), "at least 1"),
    "belief without statements": (
        lambda d: belief(reloc(d), "home_seattle").update(statements=[]),
        "at least 1",
    ),
    "blank statement": (
        lambda d: belief(reloc(d), "home_seattle").update(statements=[" ... "]),
        "blank",
    ),
    "unknown belief type": (
        lambda d: belief(reloc(d), "home_seattle").update(belief_type="opinion"),
        "belief_type",
    ),
    "unknown category": (lambda d: probe(reloc(d), "p01").update(category="trivia"), "category"),
    # uniqueness
    "duplicate scenario id": (
        lambda d: xfer(d).update(id=RELOCATION),
        "duplicate scenario ids",
    ),
    "duplicate session id": (
        lambda d: reloc(d)["sessions"][1].update(id="s01"),
        "duplicate session ids",
    ),
    "duplicate label": (
        lambda d: belief(reloc(d), "employer_acme").update(label="home_seattle"),
        "duplicate label ids",
    ),
    "duplicate probe id": (
        lambda d: probe(reloc(d), "p02").update(id="p01"),
        "duplicate probe ids",
    ),
    "one triple under two labels": (
        lambda d: reloc(d)["beliefs"].append(
            {**belief(reloc(d), "home_seattle"), "label": "home_seattle_again"}
        ),
        "share the triple",
    ),
    # references resolve
    "needed label unknown": (
        lambda d: probe(reloc(d), "p02").update(needed=["wife_morgan", "nobody"]),
        "unknown",
    ),
    "supersedes unknown label": (
        lambda d: belief(reloc(d), "home_portland").update(supersedes="home_atlantis"),
        "unknown label",
    ),
    "supersedes itself": (
        lambda d: belief(reloc(d), "home_portland").update(supersedes="home_portland"),
        "itself",
    ),
    "belief in unknown session": (
        lambda d: belief(reloc(d), "pref_concise").update(session="s09"),
        "unknown session",
    ),
    "superseding belief in the same session": (
        lambda d: belief(reloc(d), "home_portland").update(session="s01"),
        "strictly later",
    ),
    "evidence in unknown session": (
        lambda d: probe(reloc(d), "p01").update(evidence=[{"session": "s09"}]),
        "unknown session",
    ),
    "evidence past the last turn": (
        lambda d: probe(reloc(d), "p01").update(evidence=[{"session": "s03", "turn": 3}]),
        "past the",
    ),
    # answer kinds
    "abstain answer with values": (
        lambda d: probe(xfer(d), "p04")["answer"].update(values=["x"]),
        "no values",
    ),
    "exact answer with two values": (
        lambda d: probe(reloc(d), "p01").update(answer={"kind": "exact", "values": ["a", "b"]}),
        "exactly one",
    ),
    "alternatives answer without values": (
        lambda d: probe(reloc(d), "p01")["answer"].update(values=[]),
        "at least one",
    ),
    "all_of answer with one value": (
        lambda d: probe(reloc(d), "p02")["answer"].update(values=["Morgan"]),
        "at least two",
    ),
    # the category rules
    "single_hop with two needed": (
        lambda d: probe(_scenario(d, FAMILY), "p01").update(needed=["dog_biscuit", "son_theo"]),
        "exactly one",
    ),
    "multi_hop with one needed": (
        lambda d: probe(reloc(d), "p02").update(
            needed=["wife_morgan"], answer={"kind": "all_of", "values": ["Morgan", "x"]}
        ),
        "two or more",
    ),
    "multi_hop without all_of": (
        lambda d: probe(reloc(d), "p02").update(answer={"kind": "alternatives", "values": ["x"]}),
        "all_of",
    ),
    "temporal under thirty days": (
        lambda d: (
            reloc(d)["sessions"][2].update(advance_seconds=0),
            probe(reloc(d), "p04").update(advance_seconds=0),
        ),
        "thirty days",
    ),
    "update whose needed belief supersedes nothing": (
        lambda d: belief(reloc(d), "home_portland").pop("supersedes"),
        "must set supersedes",
    ),
    "update not forbidding the superseded statement": (
        lambda d: probe(reloc(d), "p01").update(forbidden_statements=[]),
        "cover",
    ),
    "correction not forbidding the superseded statement": (
        lambda d: probe(xfer(d), "p03").update(forbidden_statements=["something else"]),
        "cover",
    ),
    "preference needing a non-preference": (
        lambda d: probe(reloc(d), "p03").update(needed=["home_portland"]),
        "not preferences",
    ),
    "transfer without a project scope": (
        lambda d: probe(xfer(d), "p01").pop("project_scope"),
        "needs a project_scope",
    ),
    "transfer needing a belief of its own scope": (
        lambda d: probe(xfer(d), "p01").update(project_scope="veetbot"),
        "own scope",
    ),
    "negative transfer without forbidden statements": (
        lambda d: probe(xfer(d), "p02").update(forbidden_statements=[]),
        "forbidden statements",
    ),
    "abstention with a needed belief": (
        lambda d: probe(xfer(d), "p04").update(needed=["garmin"]),
        "no needed",
    ),
    "abstention that does not abstain": (
        lambda d: probe(xfer(d), "p04").update(answer={"kind": "exact", "values": ["x"]}),
        "abstain answer",
    ),
    "abstention without forbidden statements": (
        lambda d: probe(xfer(d), "p05").update(forbidden_statements=[]),
        "forbidden statements",
    ),
    # corpus rules
    "a category under three probes": (lambda d: _drop_category(d, "multi_hop"), "at least 3"),
    "three protected-abstention scenarios": (
        lambda d: _unprotect(d, TRANSFER, "mb-diet-health-protected-001"),
        "protected",
    ),
    "blank abstain phrase": (lambda d: d.update(abstain_phrase=" ?! "), "abstain_phrase"),
}


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_bench_corpus_shape_a_corpus_breaking_a_rule_is_refused(name: str) -> None:
    mutate, reason = MUTATIONS[name]
    document = _shipped()  # passes unmutated (gate.memory.bench_corpus_shape above)
    mutate(document)
    with pytest.raises(CorpusError) as refused:
        parse_corpus(json.dumps(document).encode())
    assert reason in str(refused.value), str(refused.value)


def test_the_loader_returns_the_document_and_its_digest(tmp_path: Any) -> None:
    path = tmp_path / "corpus.json"
    path.write_bytes(SHIPPED_CORPUS.read_bytes())
    first = load_corpus(path)
    assert first.sha256 == load_corpus().sha256
    path.write_bytes(SHIPPED_CORPUS.read_bytes() + b"\n")
    assert load_corpus(path).sha256 != first.sha256  # the digest is of the bytes read
    assert load_corpus(path).corpus == first.corpus


def test_an_unreadable_corpus_is_refused(tmp_path: Any) -> None:
    with pytest.raises(CorpusError, match="cannot read"):
        load_corpus(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(CorpusError, match="invalid corpus"):
        load_corpus(tmp_path / "bad.json")
