"""The whitespace-separated tokens of a text, read lazily, and the span of a value
starting at one of them."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import NamedTuple

from memory_es.formation.hazards.secrets.cache import patterns
from memory_es.formation.hazards.secrets.values import digit_group, digits_of, words


class Token(NamedTuple):
    start: int
    end: int
    core: str  # without surrounding quotes and punctuation
    core_start: int
    ends_sentence: bool


_TOKEN = patterns.compile(r"\S+")
_LIST_MARKER = patterns.compile(r"\d{1,2}[.)]")
_LEAD = "\"'`“”‘’([{<#*"
_TRAIL = "\"'`“”‘’)]}>.,;:!?*…"
_ABBREVIATIONS = words("no nr num acct tel dr mr mrs ms st e.g i.e etc vs")


def _chosen(raw: str) -> bool:
    """A value with digits and letters: a password whose last mark is its own."""
    return any(c.isdigit() for c in raw) and any(c.isalpha() for c in raw)


def _lower_next(text: str, end: int) -> bool:
    """Whether the text goes on in lower case after ``end`` (no new sentence)."""
    nxt = text[end : end + 2].lstrip(" ")
    return bool(nxt) and nxt[0].islower()


class Tokens:
    """The whitespace-separated tokens of a text: spans found in one pass, each token's
    core built only when a rule reads it."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts: list[int] = []
        self.ends: list[int] = []
        for m in _TOKEN.finditer(text):
            self.starts.append(m.start())
            self.ends.append(m.end())
        self._built: dict[int, Token] = {}

    def __len__(self) -> int:
        return len(self.starts)

    def __getitem__(self, i: int) -> Token:
        token = self._built.get(i)
        if token is None:
            start, end = self.starts[i], self.ends[i]
            raw = self.text[start:end]
            lead = len(raw) - len(raw.lstrip(_LEAD))
            core = raw[lead:].rstrip(_TRAIL)
            if raw.endswith("!") and _chosen(core) and not raw.endswith(("!!", "?!", "!?")):
                core += "!"  # "Walnut77!": the mark is the value's own
            ends = raw[-1] in ".!?" and core.casefold() not in _ABBREVIATIONS
            if (
                ends
                and _LIST_MARKER.fullmatch(raw)
                and (start == 0 or self.text[start - 1] == "\n")
            ):
                ends = False  # "1." opening a line of a list: no end
            if ends and raw[-1] == "!" and _chosen(raw) and _lower_next(self.text, end):
                ends = False  # "use Hornet44! to log in": the mark is the value's own
            token = self._built[i] = Token(start, end, core, start + lead, ends)
        return token

    def after(self, pos: int) -> int:
        """The index of the first token starting at or after ``pos``."""
        return bisect_left(self.starts, pos)

    def containing(self, pos: int) -> int:
        """The index of the token that holds ``pos`` (or the next one)."""
        i = bisect_right(self.starts, pos) - 1
        return i if i >= 0 and self.ends[i] > pos else i + 1


CONNECTORS = words(
    "is was are were = : - — – -- -> => → ⇒ to as equals reads es est ist é è lautet it's iz "
    "its becomes became remains c'est c’est era était war foi sono sind são zijn "
    # Swedish, Danish and Norwegian, Polish, Czech, Romanian: the password words of
    # those languages are read too (context.py)
    "är er jest je este"
)
# English first, then the same words in French, Spanish, German, Portuguese, Italian and
# Dutch: the secret words are matched in those languages too (context.py).
DETERMINERS = words(
    "the my our your his her their this that a an le la les mon ma mes el mi mis der die "
    "das mein meine o os minha meu seu il lo mio mia de het mijn"
)
FUTURE = words("will would should shall gonna going")
PREPOSITIONS = words(
    "for to of on at in with from de du des del da do dos das della dello di dal van voor "
    "von vom für meiner meines para pour per"
)
# Words that open a clause between a secret word and its value ("the PIN I set is X",
# "the password my boss gave me was X"): a subject, a relative, a time adverb.
CLAUSE_OPENERS = words(
    "i you he she we they my his her our their your that which who these those right "
    "currently usually always still now "
    # the same subjects and relatives in French, Spanish, German, Portuguese, Italian, Dutch
    "que qui où je tu il elle on nous vous ils elles yo él ella nosotros ustedes "
    "ich du er sie wir ihr den welche welcher welches eu ele ela nós você vocês "
    "che cui io lui lei noi voi loro dat die wat waar ik jij hij zij wij jullie"
)


# Adjectives said after the secret word ("mi contraseña nueva es X", "la password nuova
# è X") or before its verb ("the password now is X"), in the seven languages.
MODIFIERS = words(
    "new old current temporary default actual nueva nuevo vieja viejo actual temporal "
    "nouveau nouvelle ancien ancienne actuel actuelle provisoire nuova nuovo vecchia "
    "vecchio attuale temporanea nova novo antiga antigo atual provisória neue neues "
    "neuer alte altes aktuelle nieuwe oude huidige tijdelijke"
)


def value_span(tokens: Tokens, i: int, numeric: bool, *, quoted: bool = False) -> tuple[int, int]:
    """The span of the value starting at token ``i``; grouped digits ("553 201",
    "4111 1111 1111 1111") continue over the following digit groups."""
    t = tokens[i]
    start, end = t.core_start, t.core_start + len(t.core)
    opening = tokens.text[t.start]
    if quoted and opening in QUOTES:
        # A quoted value runs to its closing quote: "my passphrase is 'purple monkey'".
        close = tokens.text.find(QUOTES[opening], t.start + 1, t.start + 200)
        if close > t.start + 1:
            return t.start + 1, close
    if numeric and digit_group(t.core):
        j = i + 1
        while (
            j < len(tokens)
            and j <= i + 6
            and not tokens[j - 1].ends_sentence
            and digit_group(tokens[j].core)
            and len(digits_of(tokens[j].core)) <= 6
            and tokens[j].start - tokens[j - 1].end == 1
            and tokens.text[tokens[j - 1].end] == " "  # a new line starts a new value
            # "7734 2291, 6610 8843": a comma or a semicolon parts two values of a list
            and tokens.text[tokens[j - 1].end - 1] not in ",;"
        ):
            end = tokens[j].core_start + len(tokens[j].core)
            j += 1
    return start, end


QUOTES = {"'": "'", '"': '"', "“": "”", "‘": "’", "`": "`"}
