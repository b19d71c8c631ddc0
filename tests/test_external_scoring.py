"""Judge-free answer scoring for external datasets: normalised token F1 >= 0.5."""

from __future__ import annotations

import pytest

from memory_es.benchmarks.external.scoring import answer_correct, normalize_answer, token_f1


def test_normalisation_is_squad_style() -> None:
    assert normalize_answer("The  Golden-Gate Bridge!") == "goldengate bridge"
    assert normalize_answer("An apple, a pear.") == "apple pear"
    assert normalize_answer(2022) == "2022"


def test_token_f1_is_the_harmonic_mean_of_precision_and_recall() -> None:
    assert token_f1("Lisbon", "Lisbon") == 1.0
    assert token_f1("in Lisbon", "Lisbon") == pytest.approx(2 / 3)
    assert token_f1("Porto", "Lisbon") == 0.0
    assert token_f1("", "") == 1.0
    assert token_f1("", "Lisbon") == 0.0
    assert token_f1("7 May 2023", "7 May 2023") == 1.0


def test_an_answer_counts_as_correct_at_f1_one_half() -> None:
    assert not answer_correct("She moved to Lisbon", "Lisbon Portugal")  # p=1/4 r=1/2: 1/3
    assert token_f1("Lisbon Portugal Spain", "Lisbon") == pytest.approx(0.5)  # p=1/3 r=1
    assert answer_correct("Lisbon Portugal Spain", "Lisbon")  # exactly 0.5 counts
    assert answer_correct("Lisbon, Portugal", "Lisbon")  # p=1/2 r=1 -> 2/3
    assert not answer_correct("I think it was Porto", "Lisbon")
    assert answer_correct("the year 2022", 2022)  # integer gold answers
