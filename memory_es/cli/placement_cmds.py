"""Principals on several servers (memory_es/placement.py): ``shards init|add|status|
where|move``, and the routing every other command goes through when ``--store`` is a
``placement:///PATH`` URL.

Routing: a command naming ``--principal`` runs on that principal's server (the first
write places it); one naming a session (``session say|close``, ``context``, ``memory
cite|replay``, ``forget --session``) on the server that holds the session, found by one
indexed lookup per server, in parallel. A command over the whole store (``projections
status|rebuild``, ``maintenance run``, ``stats`` without ``--principal``, ``memory
rederive --all``) runs on every server at once, each in its own process, and reports per
server; ``ingest`` validates the whole file, places its principals and gives each server
its principals' lines. A server that cannot be reached fails only what lives on it, in
one line that names it.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memory_es.cli.common import Handler, Subparsers, counted, print_json, store_url
from memory_es.domain.values import DEFAULT_TENANT
from memory_es.errors import StoreUnavailable, UsageError

if TYPE_CHECKING:
    from memory_es.placement import Placement

# (command, action) pairs that run on every server: the whole store's commands.
FAN_OUT = {("projections", "status"), ("projections", "rebuild"), ("maintenance", "run")}
# Commands that write for a principal: the first one records its placement.
PLACING = {("session", "open"), ("memory", "remember")}
# Commands over one store's whole log or keys: run them with each server's own URL.
ONE_STORE_ONLY = {"log", "keys", "mcp", "demo"}
# Commands that take no store (or a placement URL of their own).
NO_STORE = {"shards", "bench", "eval"}
# The options every command takes before its name (cli/__init__.py), and whether argparse
# reads a value after each.
_GLOBAL_OPTIONS = ("--store", "--now", "--profile")


def register(commands: Subparsers) -> None:
    shards = commands.add_parser(
        "shards", help="principals placed on several servers (--store placement:///PATH)"
    )
    actions = shards.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True
    init = actions.add_parser("init", help="write a new placement file naming the servers")
    init.add_argument("file", metavar="PLACEMENT.json", type=Path)
    init.add_argument(
        "--server",
        action="append",
        required=True,
        metavar="NAME=URL",
        help="a server (repeatable): a name and its store URL",
    )
    init.set_defaults(handler=_init)
    add = actions.add_parser(
        "add",
        help="add a server new principals may be placed on (moves no existing principal)",
    )
    add.add_argument("name", metavar="NAME")
    add.add_argument("url", metavar="URL")
    add.set_defaults(handler=_add)
    status = actions.add_parser("status", help="each server: reachable, principals recorded")
    status.add_argument("--json", action="store_true")
    status.set_defaults(handler=_status)
    where = actions.add_parser("where", help="the server a principal lives on")
    where.add_argument("--principal", required=True)
    where.set_defaults(handler=_where)
    move = actions.add_parser(
        "move",
        help="move a principal to another server: its events and keys, checked identical",
    )
    move.add_argument("--principal", required=True)
    move.add_argument("--to", required=True, metavar="SERVER")
    move.add_argument(
        "--keep-source",
        action="store_true",
        help="leave the source's copy readable (default: forget it there once moved)",
    )
    move.add_argument("--json", action="store_true")
    move.set_defaults(handler=_move)


def _placement_file(args: argparse.Namespace) -> Path:
    from memory_es.placement import is_placement_url, placement_path

    url = store_url(args)
    if not is_placement_url(url):
        raise UsageError("shards commands need --store placement:///PATH (docs/operations.md)")
    return placement_path(url)


def _server_option(text: str) -> tuple[str, str]:
    name, equals, url = text.partition("=")
    if not equals or not name or not url:
        raise UsageError(f"--server is NAME=URL, not {text!r}")
    return name, url


def _init(args: argparse.Namespace) -> int:
    from memory_es.placement import init_placement

    servers = dict(_server_option(s) for s in args.server)
    if len(servers) != len(args.server):
        raise UsageError("each --server needs its own name")
    placement = init_placement(args.file, servers)
    print(
        f"placement file {args.file}: {len(placement.servers)} servers"
        f" ({', '.join(placement.servers)}); use --store placement:///{args.file}"
    )
    return 0


def _open_server(url: str, name: str, *, create: bool = False) -> Any:
    import memory_es

    try:
        return memory_es.open(url, on_stale="ignore", check_formation=False, create=create)
    except StoreUnavailable as error:
        raise StoreUnavailable(f"server {name}: {error}") from None


def _held(placement: Placement) -> dict[str, set[str]]:
    """Each server's principals now (a server with no store yet holds none)."""
    from memory_es.principal_move import held_principals
    from memory_es.stores import StoreMissing

    def one(name: str) -> set[str]:
        try:
            memory = _open_server(placement.servers[name], name)
        except StoreMissing:
            return set()
        with memory:
            return held_principals(memory)

    with ThreadPoolExecutor(len(placement.servers)) as pool:
        return dict(zip(placement.servers, pool.map(one, placement.servers), strict=True))


def _add(args: argparse.Namespace) -> int:
    from memory_es.placement import add_server, load_placement

    path = _placement_file(args)
    held = _held(load_placement(path))
    placement = add_server(path, args.name, args.url, held)
    print(
        f"added server {args.name}: new principals hash over {', '.join(placement.hashed)};"
        f" the {len(placement.principals)} placed principals stay where they are (recorded)"
    )
    return 0


def _reachable(url: str) -> str | None:
    """None, or why the server cannot be reached (one line)."""
    from memory_es.placement import holds_originator

    try:
        holds_originator(url, "00000000-0000-0000-0000-000000000000")
    except StoreUnavailable as error:
        return str(error)
    return None


def _status(args: argparse.Namespace) -> int:
    from memory_es.placement import load_placement

    placement = load_placement(_placement_file(args))
    names = list(placement.servers)
    with ThreadPoolExecutor(len(names)) as pool:
        down = dict(zip(names, pool.map(_reachable, placement.servers.values()), strict=True))
    records = {
        name: {
            "url": _display(placement.servers[name]),
            "hashed": name in placement.hashed,
            "principals": sum(1 for s in placement.principals.values() if s == name),
            "down": down[name],
        }
        for name in names
    }
    if args.json:
        print_json({"servers": records, "moving": placement.moving})
        return 0
    for name, r in records.items():
        state = f"down: {r['down']}" if r["down"] else "up"
        hashed = "new principals hash here" if r["hashed"] else "closed to new principals"
        print(f"{name} {r['url']}: {state}; {r['principals']} principals recorded; {hashed}")
    for key, target in placement.moving.items():
        print(f"moving: {key} to {target}")
    return 0


def _display(url: str) -> str:
    from memory_es.stores import parse_store_url

    return parse_store_url(url).display


def _where(args: argparse.Namespace) -> int:
    from memory_es.placement import load_placement
    from memory_es.projections.records import principal_key

    placement = load_placement(_placement_file(args))
    key = principal_key(DEFAULT_TENANT, args.principal)
    server = placement.server_of(key)
    how = "recorded" if key in placement.principals else "not placed yet: would hash to it"
    print(f"{server} {_display(placement.servers[server])} ({how})")
    return 0


def _move(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from memory_es.placement import load_placement, update_placement
    from memory_es.principal_move import move_principal, retire_source
    from memory_es.projections.records import principal_key

    path = _placement_file(args)
    key = principal_key(DEFAULT_TENANT, args.principal)
    placement = load_placement(path)
    source_name = placement.server_of(key)
    placement.url(args.to)
    if key not in placement.principals:
        raise UsageError(f"principal {key} is not placed anywhere yet: nothing to move")
    if source_name == args.to:
        raise UsageError(f"principal {key} lives on server {args.to} already")

    def mark(p: Placement) -> Placement:
        if key in p.moving:
            raise UsageError(f"principal {key} is moving to {p.moving[key]} already")
        return replace(p, moving={**p.moving, key: args.to})

    def unmark(p: Placement, *, to: str | None = None) -> Placement:
        principals = p.principals if to is None else {**p.principals, key: to}
        return replace(
            p, principals=principals, moving={k: v for k, v in p.moving.items() if k != key}
        )

    update_placement(path, mark)
    try:
        with (
            _open_server(placement.servers[source_name], source_name) as source,
            _open_server(placement.servers[args.to], args.to, create=True) as target,
        ):
            report, _ = move_principal(
                source,
                target,
                args.principal,
                tenant=DEFAULT_TENANT,
                source_name=source_name,
                target_name=args.to,
            )
            update_placement(path, lambda p: unmark(p, to=args.to))
            if not args.keep_source:
                retired = retire_source(
                    source, args.principal, tenant=DEFAULT_TENANT, target_name=args.to
                )
                report = replace(report, source_retired=retired)
    except BaseException:
        update_placement(path, unmark)
        raise
    if args.json:
        print_json(report.as_dict())
        return 0
    left = (
        "the source's copy forgotten"
        if report.source_retired
        else "the source's copy kept (forget it there: memory forget --principal)"
    )
    print(
        f"moved {key} from {source_name} to {args.to}: {counted(report.events, 'event')},"
        f" {counted(report.sessions, 'session')}, {counted(report.keys, 'key')},"
        f" {counted(report.beliefs, 'belief')};"
        f" events and read model identical; {left}"
    )
    return 0


# -- routing -------------------------------------------------------------------------------


def routed(args: argparse.Namespace, arguments: Sequence[str], handler: Handler) -> Handler:
    """The handler to run for a command given a placement store (module doc)."""
    from memory_es.placement import load_placement, placement_path

    command, action = args.command, getattr(args, "action", None)
    if command in NO_STORE:
        return handler
    path = placement_path(store_url(args))
    placement = load_placement(path)
    if command in ONE_STORE_ONLY:
        raise UsageError(
            f"`{command}` works on one store: run it with each server's URL"
            f" ({', '.join(placement.servers)} in {path}); `shards move` moves a principal"
        )
    principal = getattr(args, "principal", None)
    whole_store = (command, action) in FAN_OUT or (
        principal is None and (command == "stats" or getattr(args, "all", False))
    )
    if whole_store:
        rest = _without_store(arguments, args.command)
        return lambda _: _fan_out(args, placement, dict.fromkeys(placement.servers, rest))
    if command == "ingest":
        return lambda _: _ingest_per_server(args, arguments, path, placement)
    if principal is not None:
        return _on_principal(path, principal, (command, action) in PLACING, handler)
    session = getattr(args, "session_id", None) or getattr(args, "session", None)
    if session is not None:
        return _on_session(placement, str(session), handler)
    raise UsageError(
        "with a placement store, name the principal (--principal): a belief lives on"
        " its principal's server (or give the server's own URL: `shards where`)"
    )


def _on_server(name: str, url: str, handler: Handler) -> Handler:
    def run(args: argparse.Namespace) -> int:
        args.store = url
        try:
            return handler(args)
        except StoreUnavailable as error:
            raise StoreUnavailable(f"server {name}: {error}") from None

    return run


def _on_principal(path: Path, principal: str, record: bool, handler: Handler) -> Handler:
    from memory_es.placement import routed_server
    from memory_es.projections.records import principal_key

    if not principal.strip():
        return handler  # the command's own refusal of an empty name
    name, url = routed_server(path, principal_key(DEFAULT_TENANT, principal), record=record)
    return _on_server(name, url, handler)


def _on_session(placement: Placement, session: str, handler: Handler) -> Handler:
    from memory_es.placement import holds_originator

    def probe(url: str) -> bool | str:
        try:
            return holds_originator(url, session)
        except StoreUnavailable as error:
            return str(error)

    names = list(placement.servers)
    with ThreadPoolExecutor(len(names)) as pool:
        found = dict(zip(names, pool.map(probe, placement.servers.values()), strict=True))
    holders = [name for name, held in found.items() if held is True]
    if holders:
        return _on_server(holders[0], placement.servers[holders[0]], handler)
    down = [(name, held) for name, held in found.items() if isinstance(held, str)]
    if down:
        name, reason = down[0]
        raise StoreUnavailable(
            f"server {name} is down ({reason}): session {session} is on none of the others"
        )
    # On no server: the first one's own answer (an unknown session, a malformed id).
    return _on_server(names[0], placement.servers[names[0]], handler)


def _without_store(arguments: Sequence[str], command: str) -> list[str]:
    """The arguments without ``--store`` (each server's URL replaces it)."""
    out: list[str] = []
    rest = list(arguments)
    while rest:
        token = rest.pop(0)
        if token == command:
            return [*out, token, *rest]
        option, equals, _ = token.partition("=")
        named = [o for o in _GLOBAL_OPTIONS if o.startswith(option)] if option[:2] == "--" else []
        takes_value = len(named) == 1 and not equals
        value = [rest.pop(0)] if takes_value and rest else []
        if named != ["--store"]:
            out += [token, *value]
    return out


def _fan_out(args: argparse.Namespace, placement: Placement, argv: dict[str, list[str]]) -> int:
    """Run the command on each server of ``argv`` (its arguments there) at once, each in
    its own process; report each."""
    import orjson

    def run(name: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [sys.executable, "-m", "memory_es", "--store", placement.servers[name], *argv[name]],
            capture_output=True,
            check=False,
        )

    names = list(argv)
    with ThreadPoolExecutor(len(names)) as pool:
        done = dict(zip(names, pool.map(run, names), strict=True))
    reports: dict[str, Any] = {}
    worst = 0
    for name, result in done.items():
        errors = result.stderr.decode(errors="replace").strip().splitlines()
        for line in errors:
            print(
                f"{line.replace('memory-es: ', f'memory-es: server {name}: ', 1)}", file=sys.stderr
            )
        if result.returncode:
            worst = max(worst, result.returncode)
            last = errors[-1].split("error: ", 1)[-1] if errors else "failed"
            reports[name] = {"error": last, "exit_code": result.returncode}
        else:
            out = result.stdout.decode()
            reports[name] = orjson.loads(out) if getattr(args, "json", False) else out
    if getattr(args, "json", False):
        print_json({"servers": reports})
        return worst
    for name in names:
        report = reports[name]
        print(f"server {name} ({_display(placement.servers[name])}):")
        if isinstance(report, dict):
            print(f"  failed: {report['error']}")
            continue
        for line in report.splitlines():
            print(f"  {line}")
    return worst


def _ingest_per_server(
    args: argparse.Namespace, arguments: Sequence[str], path: Path, placement: Placement
) -> int:
    """``ingest``: the whole file validated first (a bad line writes nothing anywhere),
    each principal placed, then each server ingests its principals' lines at once."""
    import tempfile

    from memory_es import ingest
    from memory_es.placement import routed_server
    from memory_es.projections.records import principal_key

    lines = ingest.read_lines(args.file)
    by_server: dict[str, list[bytes]] = {}
    for numbered in ingest.validate(lines):
        key = principal_key(DEFAULT_TENANT, numbered.turn.principal)
        server, _ = routed_server(path, key, record=True)
        by_server.setdefault(server, []).append(lines[numbered.line - 1])
    if not by_server:
        by_server[next(iter(placement.servers))] = []  # the command's own empty report
    rest = _without_store(arguments, args.command)
    given = str(args.file)  # the token each server's part of the file replaces
    with tempfile.TemporaryDirectory(prefix="memory_es_ingest_") as folder:
        argv: dict[str, list[str]] = {}
        for server, kept in by_server.items():
            part = Path(folder) / f"{server}.jsonl"
            part.write_bytes(b"".join(line + b"\n" for line in kept))
            argv[server] = [str(part) if token == given else token for token in rest]
        return _fan_out(args, placement, argv)
