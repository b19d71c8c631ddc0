"""Train the injection screen's linear model (memory_es/formation/hazards/classifier.py).

``python -m memory_es.benchmarks.hazards.train_screen --public-sets DIR [--write]``

Reads only the train and validation splits of S-Labs and neuralchemy's core set
(benchmarks/hazards/public_sets.py says where they come from): with ``--longmemeval``
the user turns of LongMemEval S's train half of sessions as benign conversation
(benchmarks/hazards/conversation.py), fits a logistic regression, keeps the
``--features`` heaviest weights, and with ``--write`` replaces the shipped model.

The shipped model is fitted on the train and the validation splits. The thresholds
(classifier.Thresholds) were chosen before, on a model fitted on the train splits alone
(``--hold-out-validation``, which prints the validation splits' figures), and on
LongMemEval's train half; they were kept as they were when the validation splits joined
the fit (the held-out fifth of that half's sessions flags 40 user turns of 9,902 with
them, against 37 before). Never on a figure's set: LoCoMo, LongMemEval's check half, the
test splits and yanismiraoui.
Test splits and yanismiraoui are never read here: they are the figures' business.

Needs scikit-learn and scipy (``pip install scikit-learn``), which the package does not:
only this trainer fits; the screen scores in pure Python.
"""

from __future__ import annotations

import argparse
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from memory_es.benchmarks.hazards import conversation, public_sets
from memory_es.formation.hazards.classifier import (
    MODEL_PATH,
    LinearScreen,
    Thresholds,
    window_features,
    windows,
)
from memory_es.formation.hazards.injection import views

TRAIN = ("s-labs/train", "neuralchemy/train")
VALIDATION = ("s-labs/validation", "neuralchemy/validation")


def examples(root: Path, names: tuple[str, ...]) -> tuple[list[set[str]], list[int], list[str]]:
    """Every window of every text, with its text's label and set name."""
    feats: list[set[str]] = []
    labels: list[int] = []
    sources: list[str] = []
    for name in names:
        for row in public_sets.load(root, name):
            view = views(row.text)[1][0]
            for words in windows(view):
                feats.append(window_features(words))
                labels.append(int(row.injection))
                sources.append(name)
    return feats, labels, sources


def held_out_session(n: int) -> bool:
    """A fifth of the train half's sessions (by their order in the file), never fitted:
    the thresholds are chosen on them beside the validation splits."""
    return zlib.crc32(str(n).encode()) % 5 == 0


def conversation_examples(
    path: Path, limit: int, seed: int
) -> tuple[list[set[str]], list[int], list[str]]:
    """Benign windows from LongMemEval S's ``train`` half of sessions but those held out
    (at most ``limit`` user turns, drawn at random; at most four windows of each)."""
    import random

    turns = [
        text
        for n, session in enumerate(conversation.longmemeval_sessions(path, "train"))
        if not held_out_session(n)
        for role, text in session
        if role == "user" and text.strip()
    ]
    random.Random(seed).shuffle(turns)
    feats: list[set[str]] = []
    for text in turns[:limit]:
        view = views(text)[1][0]
        for n, words in enumerate(windows(view)):
            if n == 4:
                break
            feats.append(window_features(words))
    return feats, [0] * len(feats), ["longmemeval/train"] * len(feats)


def matrix(feats: list[set[str]], index: dict[str, int]) -> Any:
    from scipy.sparse import csr_matrix

    rows: list[int] = []
    cols: list[int] = []
    vals: list[float] = []
    for i, found in enumerate(feats):
        known = [index[f] for f in found if f in index]
        norm = 1.0 / np.sqrt(len(found)) if found else 0.0
        rows.extend([i] * len(known))
        cols.extend(known)
        vals.extend([norm] * len(known))
    return csr_matrix((vals, (rows, cols)), shape=(len(feats), len(index)))


def vocabulary(feats: list[set[str]], min_count: int) -> dict[str, int]:
    counts: dict[str, int] = {}
    for found in feats:
        for f in found:
            counts[f] = counts.get(f, 0) + 1
    kept = sorted(f for f, c in counts.items() if c >= min_count)
    return {f: i for i, f in enumerate(kept)}


def fit(feats: list[set[str]], labels: list[int], c: float, min_count: int) -> LinearScreen:
    from sklearn.linear_model import LogisticRegression

    index = vocabulary(feats, min_count)
    model = LogisticRegression(C=c, max_iter=2000, class_weight="balanced")
    model.fit(matrix(feats, index), np.array(labels))
    weights = {f: float(model.coef_[0][i]) for f, i in index.items()}
    return LinearScreen(weights, float(model.intercept_[0]))


def pruned(screen: LinearScreen, keep: int) -> LinearScreen:
    heaviest = sorted(screen.weights, key=lambda f: -abs(screen.weights[f]))[:keep]
    return LinearScreen({f: screen.weights[f] for f in heaviest}, screen.bias, screen.thresholds)


def validation_figures(screen: LinearScreen, root: Path) -> dict[str, dict[str, float]]:
    """Each validation split's injections and benign texts flagged by the model alone."""
    out: dict[str, dict[str, float]] = {}
    for name in VALIDATION:
        rows = public_sets.load(root, name)
        flagged = [any(screen.flags_turn(v) for v in views(r.text)[1]) for r in rows]
        injections = [f for f, r in zip(flagged, rows, strict=True) if r.injection]
        benign = [f for f, r in zip(flagged, rows, strict=True) if not r.injection]
        out[name] = {
            "injections_flagged": round(float(np.mean(injections)), 4),
            "benign_flagged": round(float(np.mean(benign)), 4),
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m memory_es.benchmarks.hazards.train_screen")
    parser.add_argument("--public-sets", type=Path, required=True)
    parser.add_argument(
        "--longmemeval",
        type=Path,
        help="longmemeval_s.json: its train half's user turns join the benign examples",
    )
    # The train half's user turns but a fifth of its sessions, held out to choose the
    # thresholds on (held_out_session): 40,000 of its 40,065, drawn at random.
    parser.add_argument("--conversation-turns", type=int, default=40_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--c", type=float, default=4.0, help="inverse regularization strength")
    parser.add_argument("--min-count", type=int, default=2)
    parser.add_argument("--features", type=int, default=40_000)
    defaults = Thresholds()
    parser.add_argument("--gated", type=float, default=defaults.gated)
    parser.add_argument("--confident", type=float, default=defaults.confident)
    parser.add_argument("--candidate", type=float, default=defaults.candidate)
    parser.add_argument("--candidate-any", type=float, default=defaults.candidate_any)
    parser.add_argument("--suspect", type=float, default=defaults.suspect)
    parser.add_argument("--declarative", type=float, default=defaults.declarative)
    parser.add_argument("--disclosing", type=float, default=defaults.disclosing)
    parser.add_argument(
        "--hold-out-validation",
        action="store_true",
        help="fit on the train splits alone and print the validation splits' figures",
    )
    parser.add_argument("--write", action="store_true", help="replace the shipped model")
    args = parser.parse_args()
    root: Path = args.public_sets
    feats, labels, _ = examples(root, TRAIN if args.hold_out_validation else TRAIN + VALIDATION)
    if args.longmemeval:
        chat, chat_labels, _ = conversation_examples(
            args.longmemeval, args.conversation_turns, args.seed
        )
        feats += chat
        labels += chat_labels
    screen = pruned(fit(feats, labels, args.c, args.min_count), args.features)
    screen.thresholds = Thresholds(
        gated=args.gated,
        confident=args.confident,
        candidate=args.candidate,
        candidate_any=args.candidate_any,
        suspect=args.suspect,
        declarative=args.declarative,
        disclosing=args.disclosing,
    )
    print(f"{len(feats)} windows, {len(screen.weights)} features kept")
    if args.hold_out_validation:
        print(validation_figures(screen, root))
    if args.write:
        MODEL_PATH.parent.mkdir(exist_ok=True)
        MODEL_PATH.write_bytes(screen.dump())
        print(f"wrote {MODEL_PATH} ({MODEL_PATH.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
