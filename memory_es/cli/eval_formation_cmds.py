"""``eval formation``: formation precision and recall over the labeled case file.

Registered under the ``eval`` group, created here if no other module made it first.
"""

from __future__ import annotations

import argparse
from typing import Any

from memory_es.cli.common import Subparsers, counted, print_json


def _eval_actions(commands: Subparsers) -> Any:
    existing = commands.choices.get("eval")
    if existing is not None:
        for action in existing._actions:
            if isinstance(action, argparse._SubParsersAction):
                return action
    group = commands.add_parser("eval", help="evaluations: formation, memory benchmark")
    actions = group.add_subparsers(dest="eval_action", metavar="ACTION")
    actions.required = True
    return actions


def register(commands: Subparsers) -> None:
    formation = _eval_actions(commands).add_parser(
        "formation", help="formation precision and recall over labeled cases"
    )
    formation.add_argument("--cases", default=None, metavar="PATH", help="JSONL case file")
    formation.add_argument(
        "--extractor",
        choices=("clauses", "provider"),
        default="clauses",
        help="clauses (deterministic, the default) or provider (a model: MEMORY_ES_MODEL_*)",
    )
    formation.add_argument("--json", action="store_true")
    formation.add_argument("--misses", action="store_true", help="list missed and extra beliefs")
    formation.set_defaults(handler=_formation)


def _formation(args: argparse.Namespace) -> int:
    from memory_es.formation.evaluation import evaluate, load_cases
    from memory_es.formation.extractor import Extractor, make_extractor
    from memory_es.profiles import load_profile

    cases, digest, path = load_cases(args.cases)
    extractor: Extractor | None = None
    if args.extractor == "provider":
        extractor = make_extractor(load_profile({"formation": {"extractor": "provider"}}).formation)
    report = evaluate(cases, extractor=extractor, cases_path=path, digest=digest)
    if args.json:
        print_json(report.as_dict(misses=args.misses))
        return 0
    t = report.total
    print(
        f"formation eval ({report.extractor}) over {counted(len(cases), 'case')} from {path}"
        f" (sha256 {digest[:12]})"
    )
    print(
        f"  precision {t.precision:.3f} ({t.supported}/{t.proposed})"
        f"   recall {t.recall:.3f} ({t.found}/{t.expected})"
    )
    print(f"  positive cases fully supported {report.positive_supported}/{report.positive_cases}")
    if report.extractor_stats is not None:
        print("  " + "  ".join(f"{k} {v}" for k, v in report.extractor_stats.items()))
    for name, c in sorted(report.by_category.items()):
        print(
            f"  {name:<13} precision {c.precision:.3f} ({c.supported}/{c.proposed})"
            f"  recall {c.recall:.3f} ({c.found}/{c.expected})"
        )
    if args.misses:
        for r in report.results:
            for e in r.missed:
                print(f"  missed {r.case.id}: {e.belief_type} [{e.subject}] {e.statement}")
            for p in r.extra:
                print(
                    f"  extra  {r.case.id}: {p.belief_type.value} {list(p.subjects)} {p.statement}"
                )
    return 0
