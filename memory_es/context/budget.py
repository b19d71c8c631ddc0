"""The one token estimate a context pack's budgets are counted in, and block fitting.

The budgets themselves are knobs of the memory profile (``context:`` in profiles.yaml;
``trace.operator_retention_days`` for how long a session snapshot can be read back).
"""

from __future__ import annotations

from collections.abc import Sequence

# Episode search: a bounded page loop over the log's turn events.
EPISODE_PAGE_SIZE = 500
EPISODE_MAX_PAGES = 64

# About four characters a token for English text; deterministic, no tokenizer download.
CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """Deterministic token estimate: ``ceil(len(text) / 4)`` characters; 0 for ''.

    A model's own tokenizer differs by a few per cent on English prose; budgets here
    only have to be deterministic and roughly right, and identical on every store.
    """
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


def render_block(header: str, lines: Sequence[str]) -> str:
    """A block of belief lines under a header; the empty block is the empty string."""
    if not lines:
        return ""
    return header + "\n" + "\n".join(lines)


def fit_lines(
    header: str, lines: Sequence[str], *, max_items: int, max_tokens: int
) -> tuple[int, int]:
    """How many leading lines fit the item and token allowances, and their block's tokens.

    Lines are taken in rank order and the first that does not fit stops the block, so a
    block is always a prefix of its ranking (the rest is dropped for budget).
    """
    kept = 0
    tokens = 0
    for count in range(1, min(max_items, len(lines)) + 1):
        cost = estimate_tokens(render_block(header, lines[:count]))
        if cost > max_tokens:
            break
        kept, tokens = count, cost
    return kept, tokens
