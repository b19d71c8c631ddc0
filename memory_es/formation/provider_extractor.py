"""Provider-assisted formation: a model proposes the candidates, the rules stay ours.

Opt-in by profile (``formation.extractor: provider``); the deterministic
``ClauseExtractor`` stays the default. It implements the same ``Extractor`` port, so
everything after extraction is unchanged: the turns it reads are the screened, trusted
user turns the hazard check already passed (an untrusted turn is never sent), the
resolver decides against existing beliefs, provenance is the source turns the model
cites, and every proposal carries ``Authority.INFERRED`` — a model's reading of what the
user said never outranks the user's own words, and forms provisional.

The model answers one JSON object, validated by pydantic (``ProposalDocument``):

    {"beliefs": [{"statement": "User lives in Portland.", "type": "user_model_attr",
                  "subjects": ["home location"], "polarity": true,
                  "source_turn_ids": ["<a turn id it was given>"]}]}

A response that fails validation — not JSON, a missing or unknown field, an unknown
type, a source turn id it was not given — forms nothing and is counted
(``ExtractionStats.invalid_responses``); a model error forms nothing and is counted
(``failed_calls``). A candidate whose statement or subjects trip the hazard check (a
secret, a redaction marker, an injection) is dropped and counted (``hazard_dropped``).
The extractor's name records its own version and the model: ``provider-extraction@1:
<model>``, beside the formation policy on every consolidation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal

import orjson
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    ValidationInfo,
    field_validator,
)

from memory_es.domain.values import Authority, BeliefType
from memory_es.formation.extractor import Proposal, SourceTurn
from memory_es.formation.hazards import candidate_hazard, screen
from memory_es.model import ChatMessage, ChatModel, ModelError
from memory_es.policy import provider_extraction_policy

TURNS_PER_CALL = 32
MAX_OUTPUT_TOKENS = 1024
REDACTION_MARKER = "[redacted:"

SYSTEM_PROMPT = """\
You extract durable memories about the user from what the user said.
You are given the user's turns as JSON: [{"id": ..., "text": ...}]. Propose only what the \
user states about themselves, their preferences, relationships, circumstances or \
decisions; never what they ask, hypothesise or quote; nothing about the assistant.
Answer one JSON object and nothing else: {"beliefs": [...]}, each belief
  {"statement": a third-person sentence starting with "User", e.g. "User lives in Portland.",
   "type": one of "fact", "preference", "relationship", "user_model_attr", "procedure_pointer",
   "subjects": one to three short lower-case noun phrases naming what it is about,
   "polarity": false only when the user says something does NOT hold,
   "source_turn_ids": the ids of the turns that say it}.
Answer {"beliefs": []} when there is nothing to remember."""

Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=400)]
Subject = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=80)]


class ProposedBelief(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    statement: Text
    type: Literal["fact", "preference", "relationship", "user_model_attr", "procedure_pointer"]
    subjects: Annotated[list[Subject], Field(min_length=1, max_length=8)]
    polarity: bool = True
    source_turn_ids: Annotated[list[str], Field(min_length=1, max_length=TURNS_PER_CALL)]

    @field_validator("source_turn_ids")
    @classmethod
    def _given(cls, ids: list[str], info: ValidationInfo) -> list[str]:
        given = (info.context or {}).get("turn_ids", frozenset())
        unknown = [i for i in ids if i not in given]
        if unknown:
            raise ValueError(f"source turn ids the model was not given: {unknown}")
        return ids


class ProposalDocument(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    beliefs: Annotated[list[ProposedBelief], Field(max_length=64)]


@dataclass
class ExtractionStats:
    calls: int = 0
    failed_calls: int = 0  # the model port raised: nothing formed
    invalid_responses: int = 0  # the answer failed validation: nothing formed
    candidates: int = 0  # proposals returned
    hazard_dropped: int = 0  # candidates the hazard check refused

    def as_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


def parse_proposals(text: str, turn_ids: frozenset[str]) -> ProposalDocument:
    """Validate a model answer; a fenced (```json) answer is read inside its fence."""
    body = text.strip()
    if body.startswith("```"):
        body = body.split("\n", 1)[1] if "\n" in body else ""
        body = body.rsplit("```", 1)[0]
    return ProposalDocument.model_validate_json(body, context={"turn_ids": turn_ids})


def _hazardous(text: str) -> bool:
    screened = screen(text)
    if screened.redactions or screened.injection or REDACTION_MARKER in text:
        return True
    return candidate_hazard(text) is not None  # a key-like token, or an order


class ProviderExtractor:
    """Candidates from a model behind the model port; deterministic only if the model is."""

    def __init__(self, model: ChatModel, *, max_tokens: int = MAX_OUTPUT_TOKENS) -> None:
        self.model = model
        self.max_tokens = max_tokens
        self.name = f"{provider_extraction_policy()}:{model.model}"
        self.stats = ExtractionStats()

    def extract(self, turns: Sequence[SourceTurn]) -> list[Proposal]:
        trusted = [t for t in turns if t.trusted and t.role == "user"]
        proposals: list[Proposal] = []
        for start in range(0, len(trusted), TURNS_PER_CALL):
            proposals += self._extract_chunk(trusted[start : start + TURNS_PER_CALL])
        return proposals

    def _extract_chunk(self, turns: Sequence[SourceTurn]) -> list[Proposal]:
        payload: list[dict[str, Any]] = [{"id": t.turn_id, "text": t.text} for t in turns]
        messages = [
            ChatMessage("system", SYSTEM_PROMPT),
            ChatMessage("user", orjson.dumps(payload).decode()),
        ]
        self.stats.calls += 1
        try:
            completion = self.model.complete(
                messages, max_tokens=self.max_tokens, temperature=0.0, json_object=True
            )
        except ModelError:
            self.stats.failed_calls += 1
            return []
        by_id = {t.turn_id: t for t in turns}
        try:
            document = parse_proposals(completion.text, frozenset(by_id))
        except ValidationError:
            self.stats.invalid_responses += 1
            return []
        proposals: list[Proposal] = []
        for belief in document.beliefs:
            if any(_hazardous(text) for text in (belief.statement, *belief.subjects)):
                self.stats.hazard_dropped += 1
                continue
            sources = sorted({by_id[i] for i in belief.source_turn_ids}, key=lambda t: t.seq)
            proposals.append(
                Proposal(
                    statement=belief.statement,
                    belief_type=BeliefType(belief.type),
                    subjects=tuple(dict.fromkeys(belief.subjects)),
                    polarity=belief.polarity,
                    source=sources[-1],
                    more_sources=tuple(sources[:-1]),
                    authority=Authority.INFERRED,
                )
            )
        self.stats.candidates += len(proposals)
        return proposals
