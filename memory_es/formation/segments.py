"""A turn's own speech, apart from the content pasted into it.

Formation forms what the user asserts about themselves and their world. Text the user
pastes — an email, a web page, tool output, a code block, a JSON envelope, a quoted
message — is someone else's words at best and a planted instruction at worst; at user
authority it would form as if the user had said it. So the extractor reads only the
turn's own speech: every embedded block below is cut out before any rule runs (the log
keeps the whole turn as said). Linear: each pattern is bounded or anchored per line.
"""

from __future__ import annotations

import re

_FENCED = re.compile(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)", re.S)
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
_MARKUP_BLOCK = re.compile(
    r"<(script|style|div|span|p|table|html|body|head|section|article|iframe|img|a)\b[^>]{0,2000}>"
    r".*?(?:</\1\s*>|\Z)",
    re.S | re.I,
)
_TAG = re.compile(r"<[^<>\n]{1,200}>")
# A line that opens a pasted message or document: a mail header, a quote marker, a
# transcript's speaker or role label, a tool's output banner.
_PASTED_LINE = re.compile(
    r"^[ \t]*(?:>|(?:from|to|cc|subject|date|sent|reply-to)\s*:|"
    r"(?:system|assistant|user|developer|tool|function|observation|output|result)\s*:|"
    r"-{3,}\s*(?:original message|forwarded message)|begin (?:forwarded|quoted))",
    re.I,
)
_JSON_START = re.compile(r"[{\[]\s*\"")


def own_speech(text: str) -> str:
    """``text`` with pasted content cut out: fenced code, markup blocks and comments, a
    JSON value, quoted or header lines and everything after a pasted message's first
    header line (an email or a transcript runs to the end of the turn)."""
    if not any(c in text for c in "`~<>{[:"):
        return text  # nothing embedded can start without one of these
    text = _FENCED.sub(" ", text)
    text = _HTML_COMMENT.sub(" ", text)
    text = _MARKUP_BLOCK.sub(" ", text)
    text = _TAG.sub(" ", text)
    text = _cut_json(text)
    kept: list[str] = []
    for line in text.split("\n"):
        if _PASTED_LINE.match(line):
            break  # the rest of the turn is the pasted message
        kept.append(line)
    return "\n".join(kept)


def _cut_json(text: str) -> str:
    """Every JSON-looking value (a brace or bracket followed by a quoted key) cut out to
    its matching close, by one bracket-depth scan."""
    out: list[str] = []
    i = 0
    while True:
        m = _JSON_START.search(text, i)
        if m is None:
            out.append(text[i:])
            return "".join(out)
        out.append(text[i : m.start()])
        depth = 0
        j = m.start()
        in_string = False
        while j < len(text):
            c = text[j]
            if in_string:
                if c == "\\":
                    j += 1
                elif c == '"':
                    in_string = False
            elif c == '"':
                in_string = True
            elif c in "{[":
                depth += 1
            elif c in "}]":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        out.append(" ")
        i = j + 1
