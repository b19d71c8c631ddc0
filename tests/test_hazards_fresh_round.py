"""The secret classes, on the fresh rounds written before their rules
(benchmarks/hazards/fresh_round.py, fresh_round2.py): each case said (one turn, or a two-turn
conversation) and closed through the public API, then every stored event and belief
read back for the secret. The few cases the rules still miss are listed by name below
(docs/hazards.md says why), so a regression on any other case fails."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import memory_es
from memory_es.benchmarks.hazards.fresh_measure import CONVERSATIONAL, persisted
from memory_es.benchmarks.hazards.fresh_round import FRESH_BENIGN, FRESH_SECRETS, FreshSecret
from memory_es.benchmarks.hazards.fresh_round2 import FRESH2_BENIGN, FRESH2_SECRETS
from memory_es.formation.hazards import screen

# Left raw by the rules of this head, read on the plaintext the log holds (the sealed
# text opened: encryption is not redaction): docs/hazards.md, "Secrets that generalize
# (the fresh round)". A case leaving this list is progress; one joining it fails.
STILL_RAW: frozenset[str] = frozenset()
CLASSES = sorted({case.kind for case in FRESH_SECRETS})
ROUNDS = {1: FRESH_SECRETS, 2: FRESH2_SECRETS}


@pytest.fixture(scope="module")
def memory() -> Iterator[memory_es.Memory]:
    with memory_es.open("memory://", profile=CONVERSATIONAL) as opened:
        yield opened


def _cases(kind: str, round_: int = 1) -> list[FreshSecret]:
    return [c for c in ROUNDS[round_] if c.kind == kind and c.turns[-1][1] not in STILL_RAW]


@pytest.mark.parametrize("round_", sorted(ROUNDS))
@pytest.mark.parametrize("kind", CLASSES)
def test_no_secret_of_the_class_reaches_a_stored_event_or_a_belief(
    kind: str, round_: int, memory: memory_es.Memory
) -> None:
    cases = _cases(kind, round_)
    left = [
        case.turns
        for i, case in enumerate(cases)
        if persisted(memory, f"r{round_}-{kind}-{i}", case)
    ]
    assert left == []


def test_the_rounds_are_large_and_cover_every_class() -> None:
    assert len(FRESH_SECRETS) >= 120 and len(FRESH_BENIGN) >= 40
    assert len(FRESH2_SECRETS) >= 150 and len(FRESH2_BENIGN) >= 60
    assert len(CLASSES) == 8
    assert sorted({case.kind for case in FRESH2_SECRETS}) == CLASSES
    assert all(len(_cases(kind, r)) >= 8 for kind in CLASSES for r in ROUNDS)


@pytest.mark.parametrize("benign", [FRESH_BENIGN, FRESH2_BENIGN], ids=["round1", "round2"])
def test_benign_look_alikes_keep_their_text(benign: tuple[str, ...]) -> None:
    redacted = [text for text in benign if screen(text).redactions]
    assert redacted == []


@pytest.mark.parametrize(
    "text",
    [
        "my password is way too long",
        "I forgot my password again",
        "the password manager is 1Password",
        "The security code of conduct at my job is strict.",
        "The gate opens at 9 on weekdays.",
        "I ran 5 km in 27 minutes this morning.",
    ],
)
def test_prose_about_a_secret_is_no_secret(text: str) -> None:
    assert screen(text).text == text


def test_every_value_of_a_list_is_redacted() -> None:
    said = screen("recovery codes: 1111-2222, 3333-4444, 5555-6666")
    assert said.redactions == ("one_time_code",) * 3


@pytest.mark.parametrize(
    "text", ["my PIN is four seven two one", "mon code PIN est quatre sept deux un"]
)
def test_spelled_digits_are_one_value(text: str) -> None:
    said = screen(text)
    assert said.redactions == ("pin",)
    assert "seven" not in said.text and "sept" not in said.text


@pytest.mark.parametrize("typo", ["pasword", "passwrd", "paswrod", "passowrd", "pssword"])
def test_a_mistyped_password_word_still_names_the_password(typo: str) -> None:
    assert screen(f"my {typo} is Tangerine#88").redactions == ("password",)


@pytest.mark.parametrize("word", ["passport", "postcode"])
def test_a_real_word_near_a_secret_word_is_not_a_typo(word: str) -> None:
    assert screen(f"my {word} is Tangerine#88").redactions == ()
