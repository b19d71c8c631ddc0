"""The opt-in model-assisted injection screen (MEMORY_ES_MODEL_SCREEN=1): a model behind
the model port judges the trusted user turns at formation, beside the rules, never
instead of them; a failed or malformed answer leaves the rules' verdict standing."""

from __future__ import annotations

from collections.abc import Sequence

import orjson
import pytest

import memory_es
from memory_es.formation.extractor import ClauseExtractor, SourceTurn
from memory_es.formation.hazards.model_screen import (
    ENV_MODEL_SCREEN,
    ModelScreen,
    ModelScreenedExtractor,
    model_screen_enabled,
)
from memory_es.model import ChatMessage, Completion, ModelUnavailable


class JudgingModel:
    """Judges as an injection every turn whose text holds ``marker``; or fails."""

    provider = "test"
    model = "judge-1"
    price_input = 0.0
    price_output = 0.0

    def __init__(self, marker: str = "", *, answer: str | None = None, fail: bool = False):
        self.marker = marker
        self.answer = answer
        self.fail = fail
        self.calls = 0

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int,
        temperature: float = 0.0,
        json_object: bool = False,
    ) -> Completion:
        self.calls += 1
        if self.fail:
            raise ModelUnavailable("down")
        turns = orjson.loads(messages[-1].content)
        ids = [t["id"] for t in turns if self.marker and self.marker in t["text"]]
        text = self.answer if self.answer is not None else orjson.dumps({"injections": ids})
        return Completion(
            str(text if isinstance(text, str) else text.decode()),
            1,
            1,
            0.0,
            self.model,
            "stop",
            0.0,
        )


def _turn(turn_id: str, text: str, *, trusted: bool = True) -> SourceTurn:
    return SourceTurn(turn_id, 1, "user", text, trusted, "2026-03-02T09:00:00Z")


def _statements(extractor: ModelScreenedExtractor, turns: list[SourceTurn]) -> list[str]:
    return [p.statement for p in extractor.extract(turns)]


def test_a_turn_the_model_judges_an_injection_forms_nothing() -> None:
    extractor = ModelScreenedExtractor(ClauseExtractor(), ModelScreen(JudgingModel("Porto")))
    turns = [_turn("t1", "I live in Porto."), _turn("t2", "I work at Acme.")]
    assert _statements(extractor, turns) == ["User works at Acme."]
    assert extractor.name == f"{ClauseExtractor().name}+model-screen:judge-1"


@pytest.mark.parametrize(
    "model",
    [JudgingModel(fail=True), JudgingModel(answer="not json"), JudgingModel(answer='{"x": 1}')],
)
def test_a_failed_or_malformed_answer_leaves_the_rules_verdict(model: JudgingModel) -> None:
    screen = ModelScreen(model)
    extractor = ModelScreenedExtractor(ClauseExtractor(), screen)
    assert _statements(extractor, [_turn("t1", "I live in Porto.")]) == ["User lives in Porto."]
    assert screen.failed_calls == 1


def test_the_model_never_makes_a_flagged_turn_trusted_nor_judges_unasked_ids() -> None:
    model = JudgingModel(answer='{"injections": ["elsewhere"]}')
    extractor = ModelScreenedExtractor(ClauseExtractor(), ModelScreen(model))
    turns = [_turn("t1", "I live in Porto.", trusted=False), _turn("t2", "I work at Acme.")]
    assert _statements(extractor, turns) == ["User works at Acme."]


def test_the_screen_is_opt_in_and_asks_nothing_of_a_session_with_no_trusted_turn() -> None:
    assert not model_screen_enabled({})
    assert model_screen_enabled({ENV_MODEL_SCREEN: "1"})
    model = JudgingModel("Porto")
    extractor = ModelScreenedExtractor(ClauseExtractor(), ModelScreen(model))
    assert extractor.extract([_turn("t1", "I live in Porto.", trusted=False)]) == []
    assert model.calls == 0


def test_with_the_screen_on_a_session_forms_only_what_the_model_passes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(ENV_MODEL_SCREEN, "1")
    monkeypatch.setattr("memory_es.model.model_from_env", lambda: JudgingModel("Porto"))
    with memory_es.open("memory://") as memory:
        session = memory.open_session("ana")
        assert memory.say(session, "I live in Porto.").trusted  # say never asks the model
        memory.say(session, "I work at Acme.")
        memory.close_session(session)
        assert [b.statement for b in memory.list_beliefs("ana")] == ["User works at Acme."]
