"""``mcp``: the MCP server (extra ``memory-es[mcp]``), over stdio or streamable HTTP.

The SDK is imported only when the command runs, so ``memory-es --help`` never loads it.
"""

from __future__ import annotations

import argparse
import os
import sys

from memory_es.cli.common import Subparsers, open_store
from memory_es.errors import UsageError

PRINCIPAL_ENV = "MEMORY_ES_PRINCIPAL"
MISSING_SDK = (
    "the MCP server needs the mcp extra, which is not installed: pip install 'memory-es[mcp]'"
)


def register(commands: Subparsers) -> None:
    mcp = commands.add_parser(
        "mcp",
        help="the MCP server: memory tools for an agent (extra [mcp])",
        description=(
            "Serve this store's memory to an MCP-capable agent. Over stdio the principal is"
            f" --principal (env {PRINCIPAL_ENV}); over HTTP each bearer token in --tokens"
            " names its principal, and a request without a valid token gets 401."
        ),
    )
    mcp.add_argument("--principal", default=None, help=f"whose memory (stdio; env {PRINCIPAL_ENV})")
    mcp.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    mcp.add_argument("--host", default="127.0.0.1", help="HTTP bind address (default loopback)")
    mcp.add_argument("--port", type=int, default=8000, help="HTTP port (default 8000)")
    mcp.add_argument(
        "--tokens",
        default=None,
        metavar="FILE",
        help="HTTP: a JSON or YAML mapping of bearer token to principal",
    )
    mcp.set_defaults(handler=_mcp)


def _port_free(host: str, port: int) -> None:
    """Refuse a port another process holds (exit 2, one line) before the store opens,
    rather than let the server library print its own error and exit 3."""
    import socket

    try:
        with socket.create_server((host, port)):
            pass
    except OSError as error:
        raise UsageError(
            f"cannot listen on {host}:{port}: {error.strerror or error};"
            " stop what holds it or choose another --port"
        ) from None


def _mcp(args: argparse.Namespace) -> int:
    from memory_es.mcp.tokens import load_tokens

    principal, tokens = None, None
    if args.transport == "stdio":
        if args.tokens is not None:
            raise UsageError("--tokens is for --transport http; over stdio use --principal")
        principal = (args.principal or os.environ.get(PRINCIPAL_ENV) or "").strip()
        if not principal:
            raise UsageError(f"memory-es mcp over stdio needs --principal P (or {PRINCIPAL_ENV})")
    else:
        if args.principal is not None:
            raise UsageError("over HTTP the principal comes from each bearer token: use --tokens")
        if args.tokens is None:
            raise UsageError(
                "memory-es mcp --transport http needs --tokens FILE (token: principal)"
            )
        if not 0 < args.port < 65536:
            raise UsageError(f"--port must be 1..65535, not {args.port}")
        tokens = load_tokens(args.tokens)
    try:
        import mcp  # noqa: F401 - only to learn whether the extra is installed
    except ImportError:
        raise UsageError(MISSING_SDK) from None
    from memory_es.mcp.server import serve

    if args.transport == "http":
        _port_free(args.host, args.port)
    with open_store(args, in_process=True, create=True) as memory:
        if args.transport == "http":
            # stdout is left alone; stderr tells the operator where and how to stop.
            print(
                f"memory-es: MCP server listening on http://{args.host}:{args.port}/mcp"
                " (streamable HTTP); stop it with Ctrl-C or SIGTERM",
                file=sys.stderr,
                flush=True,
            )
        serve(
            memory,
            transport=args.transport,
            principal=principal,
            tokens=tokens,
            host=args.host,
            port=args.port,
        )
    return 0
