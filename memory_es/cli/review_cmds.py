"""``review list|show|approve|decline``: L2 proposals on the command line
(docs/lifecycle.md "L2: reviewed maintenance")."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from memory_es.cli.common import Subparsers, open_store, print_json, say_empty

if TYPE_CHECKING:
    from memory_es.review.proposals import Proposal


def register(commands: Subparsers) -> None:
    review = commands.add_parser("review", help="L2 proposals: list, show, approve, decline")
    actions = review.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True

    listing = actions.add_parser("list", help="the principal's proposals")
    listing.add_argument("--principal", required=True)
    listing.add_argument("--json", action="store_true")
    listing.set_defaults(handler=_list)

    show = actions.add_parser("show", help="one proposal: pre-state, evidence, effects")
    show.add_argument("proposal_id", metavar="ID")
    show.add_argument("--principal", default=None)
    show.add_argument("--json", action="store_true")
    show.set_defaults(handler=_show)

    approve = actions.add_parser(
        "approve", help="apply the effects (refused if the pre-state moved)"
    )
    approve.add_argument("proposal_id", metavar="ID")
    approve.add_argument("--principal", default=None)
    approve.add_argument("--json", action="store_true")
    approve.set_defaults(handler=_approve)

    decline = actions.add_parser("decline", help="record that and why it was declined")
    decline.add_argument("proposal_id", metavar="ID")
    decline.add_argument("--reason", default="", metavar="TEXT")
    decline.add_argument("--principal", default=None)
    decline.add_argument("--json", action="store_true")
    decline.set_defaults(handler=_decline)


def _line(p: Proposal) -> str:
    members = " ".join(f"[m:{m[:8]}]" for m in p.members)
    return f"{p.id} {p.kind} {p.state} {members}  {p.decision or p.reason}"


def _list(args: argparse.Namespace) -> int:
    with open_store(args, check_formation=False) as memory:
        proposals = memory.review.list(args.principal)
    if args.json:
        print_json([p.as_dict() for p in proposals])
    elif not proposals:
        say_empty(f"no proposals for {args.principal}")
    else:
        for proposal in proposals:
            print(_line(proposal))
    return 0


def _show(args: argparse.Namespace) -> int:
    with open_store(args, check_formation=False) as memory:
        proposal = memory.review.show(args.proposal_id, principal=args.principal)
    if args.json:
        print_json(proposal.as_dict())
        return 0
    print(_line(proposal))
    for member, (position, evidence) in proposal.pre_state.items():
        print(f"  pre-state [m:{member[:8]}] position {position}, evidence {evidence}")
    for effect in proposal.effects:
        print(f"  effect {effect['event']} [m:{effect['belief_id'][:8]}]")
    if proposal.operation is not None:
        print(f"  operation {proposal.operation['operation_id']}")
        for step in proposal.operation["compensation"]:
            print(f"  compensation: {step}")
        for effect in proposal.operation["irreversible"]:
            print(f"  cannot roll back: {effect}")
    return 0


def _approve(args: argparse.Namespace) -> int:
    with open_store(args) as memory:
        proposal = memory.review.approve(args.proposal_id, principal=args.principal)
    if args.json:
        print_json(proposal.as_dict())
    elif proposal.state == "refused":
        print(f"refused: {proposal.decision}")
    else:
        assert proposal.operation is not None
        print(f"approved {proposal.id}: operation {proposal.operation['operation_id']}")
    return 1 if proposal.state == "refused" else 0


def _decline(args: argparse.Namespace) -> int:
    with open_store(args) as memory:
        proposal = memory.review.decline(
            args.proposal_id, reason=args.reason, principal=args.principal
        )
    if args.json:
        print_json(proposal.as_dict())
    else:
        print(f"declined {proposal.id}: {proposal.decision}")
    return 0
