"""The review benchmark on LoCoMo: the external replay (memory_es/benchmarks/external/)
under the RFC 002 matrix's arms, on the conversations as they are and on a generated
noisy variant with the evidence held fixed.

The variant (:func:`noisy_scenario`) keeps every dataset turn — its ref (``D3:7``), its
speaker, its text and its order — and every question as loaded; into each session it
inserts, for a seeded share of the turns that hold a first-person sentence, two turns by
the same speaker at seeded places later in the same session, the corpus variant's
templates (memory_es/benchmarks/review/noisy.py):

- a **near-duplicate** of one of the turn's first-person sentences ("I mentioned before
  that I went to a support group yesterday."): the same names, numbers and dates;
- a **low-value** turn about that sentence's most specific word ("I watched a short video
  about Lisbon yesterday."), never the evidence of any question.

Injected turns get refs no question names (``D3:7+dup``, ``D3:7+low``), so a question's
evidence units are the same turns in both variants and recall is comparable; a belief
standing only on injected turns is noise by construction (``injected_returned``). The
replay, the recall call, the ranking and the scoring are the external harness's own
(:func:`memory_es.benchmarks.external.runner.replay_scenario`); this module adds only
the injection, the arms' profiles and the scripted reviewer before the questions.

Deterministic: the same file, seed and rate give the same variant (``random.Random``
seeded per conversation). Nothing is written to disk; no text leaves the run.
"""

from __future__ import annotations

import json
import random
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import memory_es
from memory_es.benchmarks.external import load_locomo
from memory_es.benchmarks.external.jsonstream import file_sha256
from memory_es.benchmarks.external.model import LoadReport, Probe, Scenario, Session, Turn
from memory_es.benchmarks.external.runner import (
    MEMORY_ARM,
    Counts,
    ReplayHooks,
    Returned,
    new_arms,
    replay_scenario,
)
from memory_es.benchmarks.review.noisy import (
    LOW_VALUE_TEMPLATE,
    first_person_sentences,
    near_duplicate,
    specific_word,
)
from memory_es.benchmarks.review.reviewer import review_principals

K = 10
DEFAULT_SEED = 0
DEFAULT_RATE = 1.0
DUPLICATE, LOW_VALUE = "+dup", "+low"
ALIGNED: dict[str, Any] = {"lifecycle": {"alignment": {"enabled": True}}}
REORDER: dict[str, Any] = {**ALIGNED, "retrieval": {"quality_reorder_enabled": True}}
# name: (noisy variant, profile overlay, scripted reviewer before the questions)
ARMS: dict[str, tuple[bool, dict[str, Any] | None, bool]] = {
    "clean (no injection)": (False, None, False),
    "noisy, alignment off": (True, None, False),
    "noisy, alignment + scripted reviewer": (True, ALIGNED, True),
    "noisy, the same + quality reorder": (True, REORDER, True),
}


def noisy_scenario(
    scenario: Scenario, *, seed: int = DEFAULT_SEED, rate: float = DEFAULT_RATE
) -> Scenario:
    """The conversation with near-duplicate and low-value turns inserted; every dataset
    turn and every question unchanged (see the module's docstring)."""
    rng = random.Random(f"{seed}/{scenario.scenario_id}")
    n = 0
    sessions: list[Session] = []
    for session in scenario.sessions:
        # later[i]: the injected turns said after the session's i-th turn (1-based).
        later: dict[int, list[Turn]] = {}
        for position, turn in enumerate(session.turns, start=1):
            sentences = first_person_sentences(turn.text)
            if not sentences or rng.random() >= rate:
                continue
            sentence = rng.choice(sentences)
            added = [Turn(f"{turn.ref}{DUPLICATE}", turn.speaker, near_duplicate(sentence, n))]
            word = specific_word(sentence)
            if word is not None:
                added.append(
                    Turn(f"{turn.ref}{LOW_VALUE}", turn.speaker, LOW_VALUE_TEMPLATE.format(word))
                )
            n += 1
            for new in added:
                later.setdefault(rng.randint(position, len(session.turns)), []).append(new)
        turns: list[Turn] = []
        for position, turn in enumerate(session.turns, start=1):
            turns.append(turn)
            turns.extend(later.get(position, []))
        sessions.append(replace(session, turns=tuple(turns)))
    return replace(scenario, sessions=tuple(sessions))


def injected_kind(ref: str) -> str | None:
    """``near_duplicates`` or ``low_value`` for an injected turn's ref, else None."""
    if ref.endswith(DUPLICATE):
        return "near_duplicates"
    if ref.endswith(LOW_VALUE):
        return "low_value"
    return None


def scenarios(
    path: Path, *, limit: int | None = None, principal_speaker: str = "both"
) -> tuple[list[Scenario], LoadReport]:
    """The file's first ``limit`` conversations (all of them when None), as loaded."""
    report = LoadReport()
    out: list[Scenario] = []
    for scenario in load_locomo.load(path, report, principal_speaker=principal_speaker):
        if limit is not None and len(out) >= limit:
            break
        out.append(scenario)
    return out, report


class _Injected:
    """Counts, at k = 10, the returned items that stand only on injected turns."""

    def __init__(self) -> None:
        self.returned = 0
        self.near_duplicates = 0
        self.low_value = 0

    def __call__(self, probe: Probe, returned: Returned, turn_refs: dict[str, str]) -> None:
        if not probe.in_overall:
            return
        items, _tokens = returned[K]
        for _belief, sources in items:
            kinds = {injected_kind(turn_refs.get(s, "")) for s in sources}
            if sources and None not in kinds:
                self.returned += 1
                self.near_duplicates += "near_duplicates" in kinds
                self.low_value += kinds == {"low_value"}


def run_arm(
    loaded: list[Scenario],
    *,
    noisy: bool,
    overlay: dict[str, Any] | None,
    review: bool,
    seed: int = DEFAULT_SEED,
    rate: float = DEFAULT_RATE,
) -> dict[str, Any]:
    """One arm over the loaded conversations: the external replay, its evidence recall
    at k = 10 over the overall questions, and what this benchmark adds."""
    arms = new_arms()
    counts = Counts()
    decisions: dict[str, int] = {"approved": 0, "declined": 0, "refused": 0}
    injected = _Injected()
    before: Callable[[memory_es.Memory, tuple[str, ...]], None] | None = None
    if review:

        def before(memory: memory_es.Memory, principals: tuple[str, ...]) -> None:
            review_principals(memory, principals, decisions)

    hooks = ReplayHooks(before_probes=before, returned=injected)
    turns = {"original_turns": 0, "near_duplicates": 0, "low_value": 0}
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        profile = None
        if overlay is not None:
            profile = Path(folder) / "overlay.yaml"
            profile.write_text(json.dumps(overlay))  # JSON is YAML
        for scenario in loaded:
            replayed = noisy_scenario(scenario, seed=seed, rate=rate) if noisy else scenario
            for turn in (t for s in replayed.sessions for t in s.turns):
                turns[injected_kind(turn.ref) or "original_turns"] += 1
            # Only the overall questions are asked: the separate categories are not reported.
            asked = [p for p in replayed.probes if p.in_overall]
            replay_scenario(replayed, asked, arms, counts, profile=profile, hooks=hooks)
    tally = arms[MEMORY_ARM].overall()
    overall = tally.figures()
    return {
        "n": overall["n"],
        f"recall_any@{K}": overall[f"recall_any@{K}"],
        f"recall_all@{K}": overall[f"recall_all@{K}"],
        f"tokens_per_probe@{K}": overall[f"rendered_tokens_per_probe@{K}"],
        f"noise@{K}": overall[f"noise@{K}"],
        "returned": tally.returned[K],
        "noise_total": tally.returned[K] - tally.on_evidence[K],
        "injected_returned": injected.returned,
        "injected_returned_near_duplicates": injected.near_duplicates,
        "injected_returned_low_value": injected.low_value,
        "beliefs_formed": counts.beliefs_formed,
        "turns": turns,
        "decisions": decisions if review else None,
        "wall_seconds": round(time.perf_counter() - started, 1),
    }


def run(
    path: Path,
    *,
    limit: int | None = None,
    seed: int = DEFAULT_SEED,
    rate: float = DEFAULT_RATE,
    principal_speaker: str = "both",
    arms: tuple[str, ...] = tuple(ARMS),
) -> dict[str, Any]:
    """Every arm on the file's first ``limit`` conversations; the report names the file
    by its sha256 only (never its path, never a statement)."""
    if limit is not None and limit < 1:
        raise ValueError("--limit must be at least 1")
    if not 0.0 < rate <= 1.0:
        raise ValueError("--rate must be in (0, 1]")
    if not path.is_file():
        raise FileNotFoundError(f"no LoCoMo file at the given path: {path.name}")
    loaded, report = scenarios(path, limit=limit, principal_speaker=principal_speaker)
    rows = {}
    for name in arms:
        noisy, overlay, review = ARMS[name]
        rows[name] = run_arm(
            loaded, noisy=noisy, overlay=overlay, review=review, seed=seed, rate=rate
        )
    clean = rows.get("clean (no injection)")
    if clean is not None:
        for name, row in rows.items():
            if name != "clean (no injection)":
                row["degradation"] = {
                    key: round(row[key] - clean[key], 4)
                    for key in (f"recall_any@{K}", f"recall_all@{K}", f"noise@{K}")
                }
    return {
        "dataset": "locomo",
        "licence": load_locomo.LICENCE,
        "file_sha256": file_sha256(path),
        "conversations": len(loaded),
        "limit": limit,
        "seed": seed,
        "rate": rate,
        "principal_speaker": principal_speaker,
        "k": K,
        "skipped": dict(sorted(report.skipped.items())),
        "arms": rows,
    }
