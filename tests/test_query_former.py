"""The query former: turn text to query terms, shared by in-turn recall and the CLI."""

from __future__ import annotations

import memory_es
from memory_es.ports import FixedClock
from memory_es.retrieval.query import form_query


def test_stopwords_go_and_each_word_is_queried_by_its_stem() -> None:
    q = form_query("Where does the team deploy on Fridays?", project="atlas")
    assert q.terms == ("deploy", "friday", "team")
    assert q.boost == () and q.project == "atlas"


def test_first_person_words_become_the_user_as_a_boost() -> None:
    q = form_query("Where do I live now?", project="general")
    assert q.terms == ("live",)
    assert q.boost == ("user",)


def test_a_question_only_about_the_user_queries_the_user() -> None:
    q = form_query("What do you know about me?", project="general")
    assert q.terms == ("user",) and q.boost == ()


def test_a_query_of_only_stopwords_is_empty() -> None:
    assert form_query("what is it?", project="general").empty


def test_in_turn_recall_runs_at_the_sessions_project_scope(clock: FixedClock) -> None:
    with memory_es.open("memory://", clock=clock, ids=memory_es.SequentialIds()) as memory:
        atlas = memory.open_session("alice", project="atlas")
        memory.say(atlas, "I prefer tabs over spaces. I work at Acme Labs.")
        memory.close_session(atlas)
        other = memory.open_session("alice", project="zephyr")
        result = memory.recall_in_session(other, "What do I prefer, and where do I work?")
        # Beliefs about the person are portable: they cross projects, at scope 0.
        assert sorted(s.record.belief_type for s in result.items) == [
            "preference",
            "user_model_attr",
        ]
        assert all(s.components.scope == 0.0 for s in result.items)
        here = memory.open_session("alice", project="atlas")
        local = memory.recall_in_session(here, "What do I prefer?")
        assert local.items[0].components.scope == 1.0
        trace = memory.trace(local.trace_id or "")
        assert trace is not None and trace.kind == "in_turn" and trace.session_id == here


def test_a_general_word_admits_the_specific_words_of_the_curated_lexicon() -> None:
    from memory_es.retrieval.query import form_query

    terms = form_query("What pets does she have?", project="general").terms
    assert {"pet", "dog", "cat"} <= set(terms)
    assert "allerg" in form_query("Is there a medicine I should avoid?", project="g").terms
    # general categories: health, martial arts, holidays
    assert "flu" in form_query("Which ailment did I have?", project="g").terms
    assert "karat" in form_query("What martial arts do I do?", project="g").terms
    assert "christma" in form_query("Which holiday do I like best?", project="g").terms
    # irregular verbs: the base form a question asks in meets the past a statement uses
    assert {"went", "gone"} <= set(form_query("Where did I go?", project="g").terms)
    assert "bought" in form_query("What did she buy?", project="g").terms
    assert "left" in form_query("When did they leave?", project="g").terms
    # a word outside the lexicon expands to nothing
    assert form_query("Where is the lighthouse?", project="g").terms == ("lighthous",)


def test_the_lazy_expansion_table_is_the_eager_one() -> None:
    # retrieval/expansion.py stems a key's words when a question first holds the key:
    # every key expands to what stemming the whole lexicon at import gave.
    from memory_es.retrieval import expansion
    from memory_es.retrieval.tokenizer import stem

    lexicon, forms = expansion._LEXICON, expansion._FORMS
    eager = {
        key: frozenset(stem(w) for w in (*lexicon.get(key, ()), *forms.get(key, ())))
        for key in sorted(lexicon.keys() | forms.keys())
    }
    assert eager == expansion.every_expansion()
    for key, words in eager.items():
        assert expansion.expand({key}) == words - {key}
        assert expansion.expand({key, "lighthous"}) == words - {key, "lighthous"}
    assert expansion.expand({"lighthous"}) == set()


def test_words_that_ask_for_advice_admit_nothing_beside_the_topic() -> None:
    # "Any tips on what to knit for my nephew?" is about knitting and the nephew: the
    # asking words would meet every line the user once framed as a request.
    q = form_query("Any tips or ideas on what to knit for my nephew?", project="g")
    assert q.terms == ("knit", "nephew") and q.asked == ("knit", "nephew")
    assert "suggest" not in form_query("Can you suggest a knitting pattern?", project="g").terms
    # a question of nothing but the asking keeps its words
    assert form_query("Any recommendations?", project="g").terms == ("recommend",)
    # a question about someone's advice keeps them: there they are its topic
    assert "recommend" in form_query("What did Ana recommend for the trip?", project="g").terms


def test_a_question_asking_an_amount_is_a_quantity_question() -> None:
    from memory_es.retrieval.quantity import names_quantity, quantity_question
    from memory_es.retrieval.tokenizer import lexemes

    assert form_query("How many stamps do I own?", project="g").quantity
    assert form_query("What percentage of the loan is paid off?", project="g").quantity
    assert not form_query("How did I get to the harbour?", project="g").quantity
    assert not quantity_question(lexemes("Which stamps do I own?"))
    assert names_quantity(frozenset(lexemes("User owns 312 stamps.")))
    assert names_quantity(frozenset(lexemes("The trip took twelve hours.")))
    assert not names_quantity(frozenset(lexemes("User owns rare stamps.")))


def test_an_everyday_field_admits_the_things_it_is_told_by() -> None:
    # "my photography setup" meets "a mirrorless camera", "what to bake" a cake
    assert "camera" in form_query("Which gear suits my photography?", project="g").terms
    assert "cake" in form_query("What should I bake on Sunday?", project="g").terms
    assert "night" in form_query("What can I do in the evening?", project="g").terms


def test_the_words_asking_for_an_amount_admit_nothing_beside_the_topic() -> None:
    # "how many" / "how much" and "total", "number", "amount" frame the question: a line
    # whose turn says "many" or "in total" is no nearer the weddings or the siblings
    assert form_query("How many weddings have I been to in Lyon?", project="g").terms == (
        "lyon",
        "wed",
    )
    spent = form_query("How much total money did I spend on the workshops?", project="g")
    assert "much" not in spent.terms and "total" not in spent.terms
    assert {"money", "workshop"} <= set(spent.terms)
    siblings = form_query("What is the total number of siblings I have?", project="g")
    assert "total" not in siblings.terms and "number" not in siblings.terms
    assert "sibl" in siblings.terms
    # look-alikes: "how long" and "how old" say what is measured; a question asking no
    # amount keeps "total" and "number" as its topic; a frame with nothing else stays
    assert "long" in form_query("How long is my commute?", project="g").terms
    assert "total" in form_query("Where do I keep the total receipts?", project="g").terms
    assert "number" in form_query("What is my phone number?", project="g").terms
    assert form_query("How many?", project="g").terms == ("mani",)
