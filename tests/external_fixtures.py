"""Tiny synthetic files shaped like each external dataset, with the real files' quirks.

Written by hand for the tests: invented people, invented facts. The real datasets are
never in the repository (gate.memory.bench_external_adapters); these builders write a fixture into
a temporary
directory so the mapping is tested without the data.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def locomo_items() -> list[dict[str, Any]]:
    conversation: dict[str, Any] = {"speaker_a": "Avery", "speaker_b": "Blake"}
    # Ten sessions with the keys in text order ("session_10" before "session_2"), as a
    # careless sort would read them; the loader must read them in numeric order.
    texts = {
        1: [
            ("Avery", "Hi Blake! I live in Lisbon."),
            ("Blake", "Nice. I work at Fernwood Bakery."),
            ("Avery", "We should catch up soon."),
        ],
        2: [("Blake", "My dog is Pepper."), ("Avery", "I prefer green tea.")],
        3: [("Avery", "Busy week here."), ("Blake", "Same for me.")],
        4: [("Avery", "Hello again."), ("Blake", "Hi.")],
        5: [("Avery", "Weather is fine."), ("Blake", "Rainy here.")],
        6: [("Avery", "Reading a novel."), ("Blake", "Which one?")],
        7: [("Avery", "A mystery."), ("Blake", "Fun.")],
        8: [("Avery", "Back from a trip."), ("Blake", "Where to?")],
        9: [("Avery", "The coast."), ("Blake", "Lovely.")],
        10: [("Avery", "I work at Harbor Labs."), ("Blake", "Congratulations!")],
    }
    for number in sorted(texts, key=str):  # text order: 1, 10, 2, 3, ...
        conversation[f"session_{number}_date_time"] = f"1:{number:02d} pm on {number} May, 2023"
        conversation[f"session_{number}"] = [
            {"speaker": speaker, "dia_id": f"D{number}:{k}", "text": text}
            for k, (speaker, text) in enumerate(texts[number], start=1)
        ]
    qa = [
        {
            "question": "Where does Avery live?",
            "answer": "Lisbon",
            "evidence": ["D1:1"],
            "category": 4,
        },
        {
            "question": "Where does Blake work?",
            "answer": "Fernwood Bakery",
            "evidence": ["D1:2"],
            "category": 1,
        },
        # Two ids joined in one string, across both speakers: cross-speaker.
        {
            "question": "Which dog and which tea?",
            "answer": "Pepper",
            "evidence": ["D2:1; D2:2"],
            "category": 1,
        },
        # An integer answer, and a zero-padded index.
        {
            "question": "What year did Avery move?",
            "answer": 2023,
            "evidence": ["D10:01"],
            "category": 2,
        },
        # A stray colon and a bare "D" beside a good id.
        {
            "question": "Where does Avery work now?",
            "answer": "Harbor Labs",
            "evidence": ["D:10:1", "D"],
            "category": 4,
        },
        # A turn index that does not exist: the session stands in for it.
        {
            "question": "What did Avery read?",
            "answer": "a mystery",
            "evidence": ["D7:1", "D7:9"],
            "category": 3,
        },
        # Adversarial: no answer at all, only adversarial_answer.
        {
            "question": "Where does Blake live?",
            "adversarial_answer": "Lisbon",
            "evidence": ["D1:1"],
            "category": 5,
        },
        # Unusable: no evidence, and evidence in a session that does not exist.
        {"question": "What is the plan?", "answer": "none", "evidence": [], "category": 3},
        {"question": "What happened later?", "answer": "x", "evidence": ["D99:1"], "category": 4},
        # Non-adversarial without an answer: skipped.
        {"question": "What colour?", "evidence": ["D3:1"], "category": 4},
    ]
    return [{"sample_id": "conv-1", "conversation": conversation, "qa": qa}]


def longmemeval_items() -> list[dict[str, Any]]:
    def item(
        qid: str,
        qtype: str,
        question: str,
        sessions: list[list[dict[str, Any]]],
        answer_ids: list[str],
        answer: Any = "Lisbon",
        dates: list[str] | None = None,
        question_date: str = "2023/06/01 (Thu) 10:00",
    ) -> dict[str, Any]:
        ids = [
            f"s{i}" if f"answer_s{i}" not in answer_ids else f"answer_s{i}"
            for i in range(len(sessions))
        ]
        return {
            "question_id": qid,
            "question_type": qtype,
            "question": question,
            "answer": answer,
            "question_date": question_date,
            "haystack_session_ids": ids,
            "haystack_dates": dates
            or [f"2023/05/{20 + i:02d} (Sat) 0{i}:21" for i in range(len(sessions))],
            "haystack_sessions": sessions,
            "answer_session_ids": answer_ids,
        }

    filler = [
        {"role": "user", "content": "Can you suggest a recipe?"},
        {"role": "assistant", "content": "Try a lentil soup."},
    ]
    return [
        item(
            "q-user-1",
            "single-session-user",
            "Where do I live?",
            [
                filler,
                [
                    {"role": "user", "content": "I live in Lisbon.", "has_answer": True},
                    {"role": "assistant", "content": "Lisbon is lovely."},
                ],
            ],
            ["answer_s1"],
        ),
        item(
            "q-asst-1",
            "single-session-assistant",
            "What soup did you suggest?",
            [
                [
                    {"role": "user", "content": "Can you suggest a recipe?"},
                    {"role": "assistant", "content": "Try a lentil soup.", "has_answer": True},
                ],
                filler,
            ],
            ["answer_s0"],
        ),
        # Abstention (its answer not a string).
        item(
            "q-user-2_abs",
            "single-session-user",
            "Where do I work?",
            [
                [
                    {"role": "user", "content": "I work at Harbor Labs.", "has_answer": True},
                    {"role": "assistant", "content": "Nice."},
                ]
            ],
            ["answer_s0"],
            answer=7,
        ),
        # Two answer sessions, one marking no turn: as the official code does, that one is
        # not evidence (never widened to its whole session).
        item(
            "q-ms-1",
            "multi-session",
            "Which pets do I have?",
            [
                [{"role": "user", "content": "I have a cat named Miso.", "has_answer": True}],
                [
                    {"role": "user", "content": "I have a dog named Pip."},
                    {"role": "assistant", "content": "Pip is a fine name."},
                ],
            ],
            ["answer_s0", "answer_s1"],
            answer="a cat and a dog",
        ),
        # Listed out of order within one day: the 09:00 session comes second in the list;
        # replayed by date, the 14:00 move is the current address. Asked a week later.
        item(
            "q-order-1",
            "knowledge-update",
            "Where do I live now?",
            [
                [{"role": "user", "content": "I live in Lisbon now.", "has_answer": True}],
                [{"role": "user", "content": "I live in Porto."}],
            ],
            ["answer_s0"],
            dates=["2023/05/20 (Sat) 14:00", "2023/05/20 (Sat) 09:00"],
            question_date="2023/05/27 (Sat) 18:30",
        ),
        # A question dated before its last session: asked once that session is recorded.
        item(
            "q-early-1",
            "single-session-user",
            "Where do I live?",
            [[{"role": "user", "content": "I live in Lisbon.", "has_answer": True}]],
            ["answer_s0"],
            question_date="2023/05/01 (Mon) 10:00",
        ),
        item(
            "q-ku-1",
            "knowledge-update",
            "Where do I work now?",
            [
                [{"role": "user", "content": "I work at Fernwood Bakery.", "has_answer": True}],
                [{"role": "user", "content": "I work at Harbor Labs.", "has_answer": True}],
            ],
            ["answer_s0", "answer_s1"],
        ),
    ]


def halumem_users() -> list[dict[str, Any]]:
    return [
        {
            "uuid": "user-0001",
            "persona_info": "invented",
            "sessions": [
                {
                    "start_time": "Oct 06, 2025, 08:41:14",
                    "dialogue": [
                        {
                            "role": "user",
                            "content": "I live in Lisbon.",
                            "timestamp": "Oct 06, 2025, 08:41:20",
                        },
                        {
                            "role": "assistant",
                            "content": "Noted.",
                            "timestamp": "Oct 06, 2025, 08:41:35",
                        },
                    ],
                    "memory_points": [
                        {
                            "index": 1,
                            "memory_content": "The user lives in Lisbon.",
                            "memory_type": "Persona Memory",
                            "is_update": "False",
                            "original_memories": [],
                        },
                    ],
                    "questions": [
                        {
                            "question": "Where do I live?",
                            "answer": "Lisbon",
                            "evidence": [
                                {
                                    "memory_content": "The user lives in Lisbon.",
                                    "memory_type": "Persona Memory",
                                }
                            ],
                            "question_type": "Basic Fact Recall",
                        },
                    ],
                },
                {
                    "start_time": "Oct 20, 2025, 09:00:00",
                    "dialogue": [
                        {"role": "user", "content": "I live in Porto now.", "timestamp": "x"},
                        {"role": "assistant", "content": "Got it.", "timestamp": "x"},
                    ],
                    "memory_points": [
                        {
                            "index": 1,
                            "memory_content": "The user lives in Porto.",
                            "memory_type": "Persona Memory",
                            "is_update": "True",
                            "original_memories": ["The user lives in Lisbon."],
                        },
                        {
                            "index": 2,
                            "memory_content": "The user owns a boat.",
                            "memory_type": "Event Memory",
                            "is_update": True,
                            "original_memories": ["The user owned a canoe."],
                        },
                    ],
                    "questions": [
                        {
                            "question": "Where do I live now?",
                            "answer": "Porto",
                            "evidence": [{"memory_content": "The user lives in Porto."}],
                            "question_type": "Dynamic Update",
                        },
                        {
                            "question": "Do I own a plane?",
                            "answer": "Not mentioned",
                            "evidence": [],
                            "question_type": "Memory Boundary",
                        },
                    ],
                },
            ],
        }
    ]


def write_json(path: Path, items: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps(items), encoding="utf-8")
    return path


def write_jsonl(path: Path, items: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(i) + "\n" for i in items), encoding="utf-8")
    return path
