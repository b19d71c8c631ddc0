"""Memory profiles as configuration (gate.memory.profiles_wired)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

import memory_es
from memory_es.errors import UsageError
from memory_es.ports import FixedClock
from memory_es.profiles import (
    PROFILE_ENV,
    MemoryProfile,
    load_profile,
    resolve_profile,
    shipped_document,
)


def _keys(document: object, prefix: str = "") -> list[str]:
    if not isinstance(document, dict):
        return []
    out = []
    for key, value in document.items():
        out.append(f"{prefix}{key}")
        out += _keys(value, f"{prefix}{key}.")
    return out


def _formed(memory: memory_es.Memory) -> None:
    session = memory.open_session("alice")
    memory.say(session, "I live in Seattle. I work at Acme Labs.")
    memory.close_session(session)


def test_the_shipped_profile_has_one_source_and_the_generated_module_is_current() -> None:
    # profiles.yaml is the one source: the models hold no defaults (a document missing a
    # knob is refused), and memory_es/shipped_profile.py is generated from the file.
    from memory_es.profiles import SHIPPED_MODULE, shipped_module_text

    assert SHIPPED_MODULE.read_text() == shipped_module_text(), "run python -m memory_es.profiles"
    with pytest.raises(ValidationError):
        MemoryProfile.model_validate({"schema_version": 1})
    # And the file names every knob the models have.
    assert sorted(_keys(shipped_document())) == sorted(
        _keys(load_profile().model_dump(by_alias=True))
    )


def test_profiles_wired_an_operator_overlay_changes_the_value_the_retriever_uses(
    tmp_path: Path, clock: FixedClock
) -> None:
    overlay = tmp_path / "operator.yaml"
    overlay.write_text("retrieval:\n  ranking_weights:\n    confidence: 0.7\n")
    with memory_es.open("memory://", clock=clock) as shipped:
        _formed(shipped)
        base = shipped.recall("alice", "where do I live").items[0]
    with memory_es.open("memory://", clock=clock, profile=overlay) as tuned:
        _formed(tuned)
        assert tuned.retriever.profile.retrieval.ranking_weights.confidence == 0.7
        assert tuned.retriever.profile.retrieval.ranking_weights.match == 1.0  # untouched
        item = tuned.recall("alice", "where do I live").items[0]
    confidence = item.record.confidence
    assert item.score == pytest.approx(base.score + (0.7 - 0.2) * confidence)


def test_profiles_wired_the_environment_variable_names_the_overlay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    overlay = tmp_path / "env.yaml"
    overlay.write_text("trace:\n  operator_retention_days: 7\n")
    monkeypatch.setenv(PROFILE_ENV, str(overlay))
    assert resolve_profile().trace.operator_retention_days == 7
    with memory_es.open("memory://") as memory:
        assert memory.profile.trace.operator_retention_days == 7


def test_profiles_wired_unknown_keys_are_rejected(tmp_path: Path) -> None:
    overlay = tmp_path / "typo.yaml"
    overlay.write_text("retrieval:\n  ranking_weights:\n    confidance: 0.3\n")
    with pytest.raises(UsageError, match="confidance"):
        load_profile(overlay)
    with pytest.raises(UsageError, match="retreival"):
        load_profile({"retreival": {}})


@pytest.mark.parametrize("weight", ["confidence", "authority"])
@pytest.mark.parametrize("value", [0, -0.1])
def test_profiles_wired_confidence_and_authority_weights_stay_strictly_positive(
    weight: str, value: float
) -> None:
    with pytest.raises(UsageError, match=weight):
        load_profile({"retrieval": {"ranking_weights": {weight: value}}})


def test_profiles_wired_the_session_idle_boundary_is_not_in_the_document() -> None:
    keys = _keys(shipped_document()) + _keys(load_profile().model_dump(by_alias=True))
    assert not [k for k in keys if "idle" in k]
    with pytest.raises(UsageError):
        load_profile({"formation": {"session_idle_seconds": 600}})


def test_profile_models_are_frozen() -> None:
    profile = load_profile()
    with pytest.raises(Exception, match="frozen"):
        profile.retrieval.stale_penalty = 0.0  # type: ignore[misc]


def test_the_cli_profile_option_and_env_reach_the_retriever(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from memory_es.cli import main

    url = f"sqlite:///{tmp_path / 'm.db'}"
    assert main(["--store", url, "session", "open", "--principal", "ana"]) == 0
    session = capsys.readouterr().out.strip()
    main(["--store", url, "session", "say", session, "I live in Oslo."])
    main(["--store", url, "session", "close", session])
    capsys.readouterr()
    overlay = tmp_path / "p.yaml"
    overlay.write_text(yaml.safe_dump({"retrieval": {"lifecycle_weights": {"active": 0.5}}}))
    recall = ["recall", "--principal", "ana", "--json", "oslo"]
    assert main(["--store", url, *recall]) == 0
    assert '"lifecycle":1.0' in capsys.readouterr().out
    assert main(["--store", url, "--profile", str(overlay), *recall]) == 0
    assert '"lifecycle":0.5' in capsys.readouterr().out
    monkeypatch.setenv("MEMORY_ES_PROFILE", str(overlay))
    assert main(["--store", url, *recall]) == 0
    assert '"lifecycle":0.5' in capsys.readouterr().out
    bad = tmp_path / "bad.yaml"
    bad.write_text("retrieval: {nope: 1}\n")
    with pytest.raises(SystemExit) as exit_:
        main(["--store", url, "--profile", str(bad), "recall", "--principal", "ana", "oslo"])
    assert exit_.value.code == 2
    assert "nope" in capsys.readouterr().err


def _typed(document: object) -> object:
    # Each leaf with its type: 1 and 1.0 differ here, as the validated model's do.
    if isinstance(document, dict):
        return {key: _typed(value) for key, value in document.items()}
    return (type(document).__name__, document)


def test_the_plain_shipped_profile_is_the_validated_one() -> None:
    # A store opened with no overlay ranks from SHIPPED_PROFILE (no pydantic, no yaml:
    # profile_document.py): every knob, its value and its type, as validated.
    from memory_es.profile_document import SHIPPED_PROFILE, ProfileView, shipped_profile

    validated = load_profile().model_dump()
    assert _typed(SHIPPED_PROFILE) == _typed(validated)
    view = shipped_profile()
    assert view.as_dict() == SHIPPED_PROFILE

    def leaves(model: object, plain: ProfileView, prefix: str) -> list[str]:
        read = []
        for key in plain.as_dict():
            mine, theirs = getattr(plain, key), getattr(model, key)
            if isinstance(mine, ProfileView):
                read += leaves(theirs, mine, f"{prefix}{key}.")
            else:
                assert (type(mine), mine) == (type(theirs), theirs), f"{prefix}{key}"
                read.append(f"{prefix}{key}")
        return read

    assert len(leaves(load_profile(), view, "")) == 53  # every knob, read both ways
    with pytest.raises(AttributeError):
        view.retrieval.stale_penalty = 0.0
    with pytest.raises(AttributeError):
        _ = view.retrieval.no_such_knob


def test_recall_reads_the_same_from_the_plain_and_the_validated_profile(
    clock: FixedClock,
) -> None:
    # The retriever of a store opened with no profile reads the plain shipped knobs; one
    # given the validated shipped profile must answer the same, score for score.
    answers = []
    for profile in (None, load_profile()):
        ids = memory_es.SequentialIds()
        with memory_es.open("memory://", clock=clock, ids=ids, profile=profile) as memory:
            session = memory.open_session("alice")
            for text in (
                "I live in Seattle. I work at Acme Labs.",
                "I prefer green tea in the morning. My sister lives in Lisbon.",
                "I went to Lisbon last May. I bought a guinea pig.",
            ):
                memory.say(session, text)
            memory.close_session(session)
            assert memory.profile == load_profile()  # the validated model, as before
            answers.append(
                [
                    [(i.record.statement, i.score) for i in memory.recall("alice", q).items]
                    for q in ("where do I live", "what pets do I have", "where did I go", "tea")
                ]
            )
            # The session snapshot and the context pack read the retriever's profile too.
            opened = memory.open_session("alice")
            pack = memory.context(opened, "where do I live")
            snapshot = memory.session(opened).session_snapshot or {}
            answers[-1].append([snapshot.get("items"), pack.prefix, pack.snapshot, pack.recall])
    assert answers[0] == answers[1]
    assert any(answers[0][:-1])
