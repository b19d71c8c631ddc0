"""The shared tokenizer: the seed's lexeme rules, plus stems."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from memory_es.retrieval.tokenizer import document_terms, lexemes, query_terms, stem, terms


def test_runs_joined_by_dots_slashes_colons_and_at_signs_stay_whole() -> None:
    assert lexemes("see api.example.com/v1 at 10:30 or mail me@x.org") == [
        "see",
        "api.example.com/v1",
        "at",
        "10:30",
        "or",
        "mail",
        "me@x.org",
    ]


def test_an_apostrophe_splits_a_word_into_its_parts() -> None:
    assert lexemes("User's wife") == ["user", "s", "wife"]


def test_a_hyphenated_word_is_emitted_whole_and_in_parts() -> None:
    assert lexemes("state-of-the-art") == ["state-of-the-art", "state", "of", "the", "art"]


def test_a_trailing_full_stop_is_not_part_of_the_lexeme() -> None:
    assert lexemes("User lives in Seattle.") == ["user", "lives", "in", "seattle"]


def test_stems_let_live_meet_lives() -> None:
    assert stem("lives") == stem("live") == "live"
    assert "live" in document_terms("User lives in Portland.")
    assert query_terms("where do I live") == ["live"]


def test_whole_lexemes_not_substrings() -> None:
    assert "app" not in terms("Apple")
    assert "theme" not in document_terms("themes") or stem("themes") == "theme"


def test_a_query_of_only_stopwords_matches_nothing() -> None:
    assert query_terms("what do I have?") == []
    assert query_terms("") == []


@given(st.text(max_size=200))
def test_tokenizing_is_total_deterministic_and_lowercase(text: str) -> None:
    first = terms(text)
    assert first == terms(text)
    assert all(t == t.casefold() and t for t in first)


@given(st.text(max_size=200))
def test_query_terms_are_sorted_distinct_and_indexed_forms(text: str) -> None:
    q = query_terms(text)
    assert q == sorted(set(q))
    indexed = set(terms(text))
    assert set(q) <= indexed | {stem(t) for t in indexed}


def test_stems_are_the_pure_python_snowball_ones_whatever_else_is_installed() -> None:
    # PyStemmer, when installed, would give other stems for these: the index must not
    # depend on which stemmer an environment happens to hold.
    assert [stem(w) for w in ("international", "skis", "generously")] == [
        "internat",
        "ski",
        "generous",
    ]


def test_the_english_stemmer_is_snowballstemmers_own() -> None:
    # The tokenizer runs snowballstemmer's english_stemmer.py without the package's
    # __init__ (which imports every language; retrieval/tokenizer.py): the same stems.
    from snowballstemmer.english_stemmer import EnglishStemmer

    from memory_es.retrieval import tokenizer

    reference = EnglishStemmer()
    # Every word of the docs (some thousands), the stopwords and a few of Porter's cases.
    docs = Path(__file__).resolve().parents[1] / "docs"
    text = " ".join(p.read_text(encoding="utf-8") for p in sorted(docs.glob("*.md")))
    cases = ("skis", "generously", "ponies", "caresses", "dying", "news", "andes", "atlas")
    words = sorted({*re.findall(r"[a-z]+", text.lower()), *tokenizer.STOPWORDS, *cases})
    assert len(words) > 1000
    assert [tokenizer.stem(w) for w in words] == [reference.stemWord(w) for w in words]


def test_the_tokenizer_leaves_snowballstemmer_unimported() -> None:
    import subprocess
    import sys

    def run(code: str) -> str:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    stems = (
        "import sys\nfrom memory_es.retrieval.tokenizer import stem\n"
        "assert stem('lives') == 'live'\n"
    )
    # Stemming imports none of the package (its __init__ loads every language)...
    assert run(stems + "print(sorted(m for m in sys.modules if m.startswith('snowball')))") == "[]"
    # ...and whoever imports the package afterwards gets the whole of it.
    whole = "import snowballstemmer\nprint(snowballstemmer.stemmer('english').stemWord('skis'))"
    assert run(stems + whole) == "ski"
