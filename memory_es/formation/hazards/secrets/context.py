"""Context scanning: a word that names a secret, and the value said near it (after
it, before it, past intervening words, every value of a list)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import NamedTuple

from memory_es.formation.hazards.secrets.cache import Span, patterns
from memory_es.formation.hazards.secrets.fuzzy import PIN_SUFFIXES, WORD, near, typo_kind
from memory_es.formation.hazards.secrets.shapes import FUNCTION_WORDS, distinct_words
from memory_es.formation.hazards.secrets.spelled import (
    DIGIT_WORDS,
    MIN_RUN,
    MULTIPLIERS,
    digit_words,
)
from memory_es.formation.hazards.secrets.tokens import (
    CLAUSE_OPENERS,
    CONNECTORS,
    DETERMINERS,
    FUTURE,
    MODIFIERS,
    PREPOSITIONS,
    Token,
    Tokens,
    value_span,
)
from memory_es.formation.hazards.secrets.values import (
    NEAR_CONTEXT_MIN,
    Predicate,
    chosen_value,
    digit_group,
    digits_of,
    looks_secret,
    min_digits,
    name_or_code,
    plausible_value,
    random_looking,
    words,
)


@dataclass(frozen=True)
class _Context:
    kind: str
    pattern: re.Pattern[str]
    value: Predicate  # what the value looks like
    numeric: bool  # grouped digits continue the value
    strong: bool  # any plausible word after a connector is the value (a password word)
    window: int = 6
    self_evident: bool = False  # the value's shape alone is evidence (a random key)
    # What the neighbourhood must hold for a value to be there at all: a cheap scan
    # that spares the token-by-token reading around most context words.
    needs: re.Pattern[str] | None = None
    # No secret word: the value closes its clause, or the thing it opens is named before
    # ("the gate opens with 7741"; not "the exhibition opens with 300 paintings").
    opens_a_thing: bool = False


_CTX_HEAD, _CTX_TAIL = r"(?i)(?<![\w-])(?=\w)(?:", r")(?![\w-])"


def _ctx(words: str) -> re.Pattern[str]:
    return patterns.compile(_CTX_HEAD + words + _CTX_TAIL)


def _any_of(patterns: Iterable[re.Pattern[str]]) -> re.Pattern[str]:
    """One scan for where any of the context patterns starts."""
    words = (p.pattern[len(_CTX_HEAD) : -len(_CTX_TAIL)] for p in patterns)
    return _ctx("|".join(f"(?:{w})" for w in words))


_CODE_EXCLUDED = patterns.compile(
    r"(?i)(?:zip|postal|post|area|dress|country|source|error|status|exit|return|promo|"
    r"discount|coupon|qr|bar|morse|tax|color|colour|genetic|moral|honou?r|penal|civil|"
    r"html|css|python|java|js|cheat|flight|booking|tracking|product|model|sku|course|"
    r"class|item|airport|iata|icao|station|dialling|dialing|country|zip|goods|commodity|"
    r"tariff|customs|hs|naics|diagnosis|procedure|billing|stock|ticker)[\s-]*$"
)


_THREE_DIGITS = patterns.compile(r"\d[-. ]?\d[-. ]?\d")
# A code of letters and digits in groups ("A7K2-9PQ4") has no three digits together.
_CODE_NEEDS = patterns.compile(
    r"\d[-. ]?\d[-. ]?\d|(?<![\w-])(?=[A-Za-z]*\d)[A-Za-z0-9]{3,6}-(?=[A-Za-z]*\d)[A-Za-z0-9]{3,6}"
)
# Three digits spelled in a row ("zero eight one five", "double four one two").
# Longest first (a word before its prefix), then alphabetical: the same pattern in every
# process (a set iterates in hash order), so the compiled-pattern cache finds it.
_SPELLED_WORD = "|".join(sorted(DIGIT_WORDS | MULTIPLIERS, key=lambda w: (-len(w), w)))
_THREE_SPELLED = patterns.compile(
    rf"(?i)(?<!\w)(?:{_SPELLED_WORD})(?:[\s,-]{{1,3}}(?:{_SPELLED_WORD})){{2}}(?!\w)"
)
# The code of a door, a gate, an alarm or a safe in French, Spanish, German, Portuguese,
# Italian and Dutch: "o código do portão", "de code van de kluis", "der Türcode",
# "de toegangscode", "le code d'accès", "il codice segreto".
_OBJECTS = (
    r"port[ãa]o|porta|portone|portail|porte|puerta|port[óo]n|cancell?[oa]|hek|deur|poort|"
    r"tor|t[üu]r|alarm[ae]?|allarme|cofre|coffre|cassaforte|kluis|tresor|garage[mn]?|"
    r"garaje|lucchetto|cadeado|candado|cadenas|slot|schloss|entrada|entrata|entr[ée]e|"
    r"ingresso|ingang|eingang|immeuble|edif[ií]cio|gebouw|geb[äa]ude|armadietto|kastje|"
    r"spind|casier|taquilla|cacifo|fietsslot|fahrradschloss"
)
_OBJECT_CODES = (
    r"(?:c[óo]digo|codice|code|kode)\s+(?:de|do|da|del|della|dello|dell['’]|di|du|des|d['’]|"
    r"van|von|vom|f[üu]r|der|den)\s*(?:(?:la|le|el|o|a|het|de|den|das|die|l['’])\s*)?"
    r"(?:" + _OBJECTS + r")|"
    r"(?:toegangs|zugangs|t[üu]r|tor|alarm|deur|hek|poort|kluis|tresor|garagen?|haus|huis|"
    r"sicherheits|beveiligings|slot|schloss)-?codes?|geheimzahl|geheimnummer|pin-?nummer|"
    r"code\s+d['’]acc[eè]s|c[óo]digo\s+de\s+acc?ess?o|digicode|codice\s+(?:di\s+accesso|segreto)|"
    r"code\s+secret|c[óo]digo\s+(?:secreto|pin)|geheimcode"
)
_KEYISH = patterns.compile(r"[A-Za-z0-9+/_~-]{12}")
_PW_WORDS = (
    r"pass(?:word|wd|code|key|phrase)s?|pass\s+word|pwd|pw|p/w|pword|"
    r"secret\s+(?:word|phrase|answer)|safe\s?word|code\s?word|security\s+answer|"
    r"answer\s+to\s+(?:my|the)\s+security\s+question|"
    r"contrase[nñ]a|clave|mot[\s-]+de[\s-]+passe|mdp|passwort|kennwort|senha|parola\s+d'ordine|"
    # "la parola chiave", "a palavra-passe", and the other languages' own words;
    # "mot de pase", "mot de pass": the French words typed with a typo (fuzzy.py reads
    # one word, these are three)
    r"parola[\s-]+chiave|palavra[\s-]+passe|mot[\s-]+de[\s-]+(?:pase|pass|paase|passse|pqsse)|"
    r"contrasenya|lösenord|losenord|adgangskode|passord|salasana|has[łl]o|heslo|jelsz[óo]|"
    r"şifre|parol[ăa]|wagwoord|"
    r"wachtwoord|(?:wlan|wifi|wi-fi|e-?mail)-(?:passwort|wachtwoord|password|schl[üu]ssel|"
    r"kennwort)|"
    # the key of a wifi network: "ma clé wifi", "la chiave del wifi", "de wifi-sleutel"
    r"cl[ée]s?\s+(?:du\s+|de\s+|del\s+)?(?:wifi|wi-fi|wpa2?|r[ée]seau|red)|"
    r"chiave\s+(?:del\s+|della\s+)?(?:wifi|wi-fi|wpa2?|rete)|"
    r"chave\s+(?:do\s+|da\s+)?(?:wifi|wi-fi|wpa2?|rede)|(?:wifi|wi-fi|netwerk)-?sleutel|"
    r"netzwerkschl[üu]ssel|wlan-?schl[üu]ssel|"
    r"пароль|密码|パスワード|暗証番号"
)
_CONTEXTS: tuple[_Context, ...] = (
    _Context(
        "password",
        _ctx(
            r"(?:wi-?fi|router|network|wpa2?|hotspot|laptop|computer|phone|email|e-mail)"
            r"\s+(?:code|key)|code\s+(?:for|to)\s+(?:the\s+|my\s+|our\s+)?(?:wi-?fi|router|"
            r"network|internet|laptop|computer)|to\s+(?:get\s+in(?:to\s+(?:my|the|our)\s+\w+)?|log\s?in|sign\s?in|"
            r"unlock\s+(?:it|the\s+\w+|my\s+\w+))|" + _PW_WORDS
        ),
        plausible_value,
        numeric=True,
        strong=True,
    ),
    _Context(
        "pin",
        _ctx(
            r"(?:door|gate|alarm|lock|lockbox|locker|safe|garage|entry|access|keypad|building|"
            r"house|front\s+door|unlock|padlock|combination)\s+(?:code|combo|combination)|"
            r"codes?\s+(?:for|to)\s+(?:the\s+|my\s+|our\s+)?(?:[a-z]{2,12}\s+)?(?:door|gate|alarm|lock|lockbox|"
            r"locker|safe|garage|keypad|building|house|front\s+door)s?|cvv2?|cvc|security\s+code|"
            r"code\s+to\s+(?:get\s+in(?:to)?|open|unlock|enter)(?:\s+(?:the|my|our)\s+\w+)?|"
            r"pins?(?:\s+(?:code|number))?|pin-?code|pin-?numbers?|code\s+pin|codice\s+pin|"
            # "the combination to the bike lock", "the combination for the safe"
            r"combinations?\s+(?:to|for|of|on)\s+(?:the\s+|my\s+|our\s+|his\s+|her\s+|their\s+)?"
            r"(?:[a-z]{2,12}\s+)?(?:lock|padlock|safe|locker|door|gate|briefcase|suitcase|"
            r"lockbox|vault|box)|" + _OBJECT_CODES
        ),
        plausible_value,
        numeric=True,
        strong=True,
    ),
    _Context(
        "one_time_code",
        _ctx(
            r"(?:one[- ]time|verification|confirmation|login|log-?in|sign-?in|auth|"
            r"authentication|2fa|mfa|two[- ]factor|sms|text|otp|backup|recovery|reset|"
            r"\d-digit|six-digit|access|security)\s+(?:code|pin|number|passcode)s?|otp|totp|"
            r"2fa|mfa|code|codes|"
            # recovery and verification codes in the other languages
            r"(?:herstel|verificatie|back-?up|wiederherstellungs|sicherungs|best[äa]tigungs|"
            r"verifizierungs|bevestigings|inlog|anmelde)-?codes?|"
            r"codes?\s+de\s+(?:r[ée]cup[ée]ration|v[ée]rification|secours|confirmation)|"
            r"c[óo]digos?\s+de\s+(?:recupera[çc][ãa]o|recuperaci[óo]n|verifica[çc][ãa]o|"
            r"verificaci[óo]n|respaldo|seguran[çc]a|seguridad|confirma[çc][ãa]o|"
            r"confirmaci[óo]n)|codici\s+di\s+(?:recupero|verifica|backup|sicurezza)|"
            r"codice\s+di\s+(?:recupero|verifica|conferma)"
        ),
        min_digits(4, alnum=True, max_len=12),  # "G-482913" too
        numeric=True,
        strong=False,
        needs=_CODE_NEEDS,
    ),
    # No secret word at all: a code after a verb of access ("the gate opens with 7741",
    # "disarm with 5173", "punch in 4455", "the 3 digits on the back are 331").
    _Context(
        "pin",
        _ctx(
            r"(?:opens?|unlocks?|disarms?|deactivates?|opened|unlocked|disarmed|"
            r"(?:turns?|turned|switch(?:es|ed)?|shuts?)\s+off)\s+"
            r"(?:(?:it|them|the\s+\w+|my\s+\w+)\s+)?(?:with|on|using|by)|"
            r"(?:punch|key|type|tap)(?:ed|es|ing|s)?\s+in|"
            # the same in French, Spanish, Italian, Portuguese, Dutch and German: "la porte
            # s'ouvre avec 9164", "se abre con", "si apre con", "abre com", "gaat open met",
            # "öffnet man mit"
            r"(?:s['’]|se\s+|on\s+)?(?:ouvre|ouvrent|ouvert|d[ée]verrouille|d[ée]sactive|"
            r"d[ée]sarme)\s+(?:avec|par)|"
            r"(?:se\s+|si\s+)?(?:abre|abren|abrem|apre|aprono|desbloquea|desbloqueia|"
            r"sblocca|desactiva|desativa|disattiva|desarma|disarma)\s+(?:con|com)|"
            r"(?:gaat|gaan|ging)\s+open\s+met|(?:opent|ontgrendelt|ontgrendel)\s+(?:je\s+|men\s+)?met|"
            r"(?:öffnet|öffnen|oeffnet|entsperrt|entriegelt|deaktiviert)(?:\s+(?:man|sich|es|sie))?"
            r"\s+mit|"
            r"(?:digits|numbers)\s+on\s+the\s+back(?:\s+of\s+(?:my|the|your)\s+card)?"
        ),
        min_digits(3, max_len=12),
        numeric=True,
        strong=False,
        window=4,
        needs=_THREE_DIGITS,
        opens_a_thing=True,
    ),
    _Context(
        "routing_number",
        _ctx(r"routing(?:\s+(?:number|no|num|#))?|aba|transit\s+number|sort\s+code|bsb"),
        min_digits(6, max_len=12),
        numeric=True,
        strong=False,
        needs=_THREE_DIGITS,
    ),
    _Context(
        "bank_account",
        _ctx(
            r"(?:bank|checking|chequing|savings|current|deposit)\s+account|account|acct|a/c|"
            r"iban|bank\s+details|konto|cuenta|compte|conta|conto"
        ),
        min_digits(6, alnum=True),
        numeric=True,
        strong=False,
        needs=_THREE_DIGITS,
    ),
    _Context(
        "card_number",
        _ctx(
            r"(?:(?:credit|debit|bank|company|corporate)\s{1,3})?card(?:\s+(?:number|no|#))?|visa|"
            r"mastercard|amex|cc"
        ),
        min_digits(12, max_len=23),
        numeric=True,
        strong=False,
        needs=_THREE_DIGITS,
    ),
    _Context(
        "national_id",
        _ctx(
            r"ssn|social\s+security(?:\s+(?:number|no|#))?|social|national\s+(?:id|identity|"
            r"insurance)(?:\s+(?:number|no|card))?|id\s+number|identity\s+number|tax\s+(?:id|"
            r"number|file\s+number|code)|tin|itin|ein|sin|nino|ni\s+number|personnummer|dni|"
            r"nie|nif|cpf|curp|aadhaar|pesel|bsn|codice\s+fiscale|steuer-?id|"
            r"driver'?s\s+licen[cs]e(?:\s+(?:number|no))?|licen[cs]e\s+(?:number|no)|"
            r"medicare(?:\s+(?:number|no))?|nhs\s+number|insurance\s+number|"
            r"member(?:ship)?\s+(?:id|number)|patient\s+id"
        ),
        min_digits(5, alnum=True, max_len=20),
        numeric=True,
        strong=False,
        needs=_THREE_DIGITS,
    ),
    _Context(
        "passport",
        _ctx(
            r"passport(?:\s+(?:number|no|num|nr|#|id))?|pasaporte|passeport|reisepass|"
            r"passaporto"
        ),
        min_digits(5, alnum=True, max_len=12),
        numeric=False,
        strong=False,
        window=8,
        needs=_THREE_DIGITS,
    ),
    # Weaker words: the value must look chosen ("the key is 4f8a9c2e1b", "log in as admin
    # with Qw3rty!9"), and a lock combination is digits ("the combination is 12-34-56").
    _Context(
        "password",
        _ctx(r"key|pass|login|log\s?in|logged\s+in|sign\s?in|signed\s+in|credentials?|creds"),
        chosen_value,  # "key differences: AspireIQ", "key for (k, v) in items(": neither
        numeric=False,
        strong=False,
        needs=patterns.compile(r"[0-9!@#$%^&*?]"),
    ),
    _Context(
        "pin",
        _ctx(r"combos?|combinations?|lock\s+codes?"),
        min_digits(3, max_len=12),
        numeric=True,
        strong=False,
        needs=_THREE_DIGITS,
    ),
    # A thing that opens with a code, said with its code: "the lockbox is 3310".
    _Context(
        "pin",
        _ctx(r"lockbox|lock\s+box|key\s?safe|key\s?box|padlock|digicode|keypad"),
        min_digits(3, max_len=12),
        numeric=True,
        strong=False,
        window=2,
        needs=_THREE_DIGITS,
    ),
    _Context(
        "token",
        _ctx(
            r"(?:api|access|secret|signing|private|license|licence|product|activation|"
            r"auth|session|refresh|id|bearer|personal|client|app|master|encryption|"
            r"deploy|webhook|aws|iam|s3)\s*(?:key|token|secret)s?|key|token|secret|"
            r"credentials?|creds|cookie|api"
        ),
        # name=value is the credential rule's (it keeps the name readable)
        lambda core: (
            "=" not in core.rstrip("=")
            and random_looking(core, NEAR_CONTEXT_MIN)
            and not name_or_code(core, models=False)  # "TokenObtainPairView", "List[Item"
        ),
        numeric=False,
        strong=False,
        window=8,
        self_evident=True,
        needs=_KEYISH,
    ),
)

_LOGIN = _ctx(r"login|log-?in|sign-?in|credentials?|creds|user(?:name)?|account")
_USE_VERBS = words(
    "use using used enter entered type typed try tried put paste pasted input give "
    "gave pick picked chose choose set"
)
_BACKWARD_CONNECTORS = words("is was = : are will be")


_FILLERS = words(
    "now still just actually currently simply literally set changed also "
    # the same in French, Spanish, German, Portuguese, Italian and Dutch
    "maintenant toujours encore ahora todavía aún ya jetzt nun noch immer agora ainda já "
    "ora adesso ancora sempre nu nog altijd"
)


def _candidate(tokens: Tokens, j: int, ctx: _Context) -> tuple[int, int] | None:
    """The value's span if token ``j`` starts one of the context's shape."""
    start, end = value_span(tokens, j, ctx.numeric)
    if start >= end or _counted_or_timed(tokens, j, end):
        return None
    return (start, end) if ctx.value(_squeeze(tokens, j, end)) else None


# A number that counts something ("3000 lines", "200 grams") or tells the time ("at
# 2130") is no code of a weaker word.
_UNITS = words(
    "lines line words characters chars digits letters pages grams g kg kilos kilograms "
    "pounds lbs miles km kilometers kilometres meters metres feet minutes mins hours hrs "
    "days weeks months years people persons times points dollars euros pounds bucks usd "
    "eur calories kcal steps items pieces units percent % degrees bytes kb mb gb users "
    "files rows students employees members followers views likes votes"
)
_TIME_WORDS = words("at since until till around before after from")


def _counted_or_timed(tokens: Tokens, j: int, end: int) -> bool:
    k = tokens.after(end)
    if k < len(tokens) and not tokens[k - 1].ends_sentence and tokens[k].core.casefold() in _UNITS:
        return True
    return j > 0 and tokens[j - 1].core.casefold() in _TIME_WORDS


def _squeeze(tokens: Tokens, j: int, end: int) -> str:
    """Grouped digits read as one value ("553 201" -> "553201")."""
    parts = [tokens[j].core]
    k = j + 1
    while k < len(tokens) and tokens[k].core_start < end:
        parts.append(tokens[k].core)
        k += 1
    return "".join(parts)


def _direct(core: str) -> bool:
    """A value right after a password word, with no connector: "PIN 4821", "with
    password Xk9!q"."""
    return looks_secret(core) or (digit_group(core) and len(digits_of(core)) >= 3)


def _apostrophe(core: str) -> str:
    return core.casefold().replace("’", "'")


_CLAUSE_REACH = 6
_CLAUSE_CLOSERS = words("and but or so then which because while")


def spelled_run(tokens: Tokens, j: int) -> int:
    """The index past a run of spelled digits starting at token ``j`` ("four seven two
    one"), or ``j`` when fewer than three digits are spelled there."""
    k, count = j, 0
    stop = min(len(tokens), j + 16)
    while k < stop:
        n = digit_words(tokens[k].core)
        if not n and tokens[k].core.casefold() in MULTIPLIERS and not tokens[k].ends_sentence:
            n = 1 if k + 1 < stop and digit_words(tokens[k + 1].core) else 0
        if not n:
            break
        count += n
        k += 1
        if tokens[k - 1].ends_sentence:
            break
    return k if count >= MIN_RUN else j


def _stated(tokens: Tokens, j: int, ctx: _Context, value: str) -> bool:
    """Whether the word after a connector is the secret itself, not prose about it.
    A PIN or a lock code has digits ("the security code of conduct is strict" has
    none); a plain lower-case word is a password only when it closes its clause
    ("my password is sunshine, and ...", not "my password is way too long")."""
    if ctx.kind == "pin" and not any(c.isdigit() for c in value):
        return False
    if not (value.isalpha() and value.islower()):
        return True
    t = tokens[j]
    closes = t.ends_sentence or t.end > t.core_start + len(t.core) or j + 1 == len(tokens)
    return closes or tokens[j + 1].core.casefold() in _CLAUSE_CLOSERS


_INTERJECTIONS = words("oh ok okay um uh well yeah yes so ah hmm sure right")
_ASIDE_TOKENS = 10
_DASHES = ("—", "–", "--", "-")
_CLOSERS = {"(": ")", "[": "]"}


def _aside(text: str, tokens: Tokens, i: int, tail: str) -> int | None:
    """The index of the first token past an aside opening at token ``i`` (a comma, a dash
    or a parenthesis after the secret word) and closed by the same mark within a few
    words; None when there is none."""
    opening = tokens.text[tokens[i].start]
    if opening in _CLOSERS:
        close = _CLOSERS[opening]
    elif tail.strip() == "," or tokens[i].core in _DASHES:
        close = "," if tail.strip() == "," else tokens[i].core
    else:
        return None
    first = i + 1 if tokens[i].core in _DASHES else i
    for k in range(first, min(len(tokens), i + _ASIDE_TOKENS)):
        raw = tokens.text[tokens[k].start : tokens[k].end]
        if close in (")", "]") and close in raw:
            return k + 1
        if close == "," and raw.endswith((",", ":")):
            # "my pin, spelled out so I remember: X": an aside the colon closes
            return k + 1
        if close in _DASHES and tokens[k].core == close and k > first:
            return k + 1
        if tokens[k].ends_sentence:
            return None
    return None


def _forward(
    text: str, tokens: Tokens, i: int, at: int, ctx: _Context, own: int = 0, _depth: int = 0
) -> int | None:
    """The index of the value said after the context word ending at ``at`` (whose own
    first token is ``own``)."""
    tail = text[at : tokens[i].start] if i < len(tokens) else text[at:]
    # "the PIN, if I remember right, is X", "the PIN — I think — is X", "password (don't
    # tell anyone): X": an aside between the word and the rest of its clause.
    if ctx.strong and i < len(tokens) and _depth < 1:
        past = _aside(text, tokens, i, tail)
        if past is not None:
            nxt = tokens[past].start if past < len(tokens) else len(text)
            start = tokens[past - 1].end if past > 0 else at
            if past > 0 and text[start - 1] == ":":
                start -= 1  # the colon closing the aside gives the value
            found = _forward(text, tokens, past, min(start, nxt), ctx, own, _depth=1)
            if found is not None:
                return found
            # A value inside the aside itself is one only when it looks chosen
            # ("password (Herring!4)"), not "password (as usual) was forgotten".
            inside = _forward(text, tokens, i, at, ctx, own, _depth=1)
            return inside if inside is not None and _direct(tokens[inside].core) else None
    seen_connector = bool(re.search(r"[:=#]|^['’]s\b|^\s*[-—–]", tail))
    # "password... X": an ellipsis is a pause, no end.
    tail = tail.replace("...", " ").replace("…", " ")
    # "passport no. is X": the stop of an abbreviation the context ends with is no end.
    ends = "?" in tail or "!" in tail or ("." in tail and (i == 0 or tokens[i - 1].ends_sentence))
    # "My email password? It's X." - the answer after its own question; "the gym locker
    # pin? 3131" - the answer alone.
    if ends and i < len(tokens) and "?" in tail and ctx.strong and _direct(tokens[i].core):
        return i
    # "the code? 7741": a number answering a weaker word's own question.
    if ends and i < len(tokens) and "?" in tail and ctx.kind in _SPELLED_KINDS:
        core = tokens[i].core
        if (digit_group(core) and len(digits_of(core)) >= 4) or _spelled_at(tokens, i):
            return i
    # "my passcode? Oh it's X": an interjection before the answer.
    interjected = i + 1 < len(tokens) and tokens[i].core.casefold() in _INTERJECTIONS
    if ends and interjected and _apostrophe(tokens[i + 1].core) in ("it's", "its", "it"):
        i += 1
    if ends and (i >= len(tokens) or _apostrophe(tokens[i].core) not in ("it's", "its", "it")):
        return None
    # "PIN nuber: X", "the pin numbr for the card is X": a mistyped part of the word.
    if ctx.kind == "pin" and i < len(tokens):
        suffix = tokens[i].core.casefold()
        if any(near(suffix, word) for word in PIN_SUFFIXES):
            at, i = tokens[i].core_start + len(tokens[i].core), i + 1
            tail = text[at : tokens[i].start] if i < len(tokens) else ""
            seen_connector = seen_connector or bool(re.search(r"[:=#]", tail))
    qualified = False  # "password for the netflix account is X"
    # A clause between the word and its value reaches further ("the password I picked
    # for my laptop yesterday is X").
    # A weaker word reaches as far past a clause of its own ("the code my sister uses for
    # her garage is X"), for a value after a connector that closes its clause.
    clause = i < len(tokens) and (
        _opens_clause(tokens[i].core) or tokens[i].core.casefold() in PREPOSITIONS
    )
    base = i + ctx.window
    limit = min(len(tokens), base + (_CLAUSE_REACH if ctx.strong or clause else 0))
    j = i
    while j < limit:
        t = tokens[j]
        low = _apostrophe(t.core)
        if low in FUTURE and j + 1 < limit and tokens[j + 1].core.casefold() == "be":
            seen_connector = True
            j += 2
            continue
        if low == "to" and j + 1 < limit and tokens[j + 1].core.casefold() in DETERMINERS:
            qualified = True  # "the password to the shared account is X"
        elif low in CONNECTORS or low == "":
            seen_connector = True
        elif not any(c.isalnum() for c in low):
            pass  # "my PIN 🙈 is X": an emoji or a mark between the word and its verb
        elif seen_connector and low in _FILLERS:
            pass
        elif j == i and ctx.strong and low in _FILLERS and j + 1 < limit:
            # "is my wifi password still X?": a filler, then the value
            if _direct(tokens[j + 1].core):
                return j + 1
        elif seen_connector and ctx.strong and low in DETERMINERS:
            # "the passcode is my birthday, 0412": what it is, then the value itself
            k = j + 1
            while k < min(limit, j + 4) and tokens.text[tokens[k].end - 1] != ",":
                k += 1
            comma = k + 1 < len(tokens) and tokens.text[tokens[k].end - 1] == ","
            return k + 1 if comma and _direct(tokens[k + 1].core) else None
        elif ctx.strong:
            if seen_connector and spelled_run(tokens, j) > j:
                return j
            if seen_connector:
                end = value_span(tokens, j, ctx.numeric, quoted=True)[1]
                value = tokens.text[t.core_start : end]
                if plausible_value(value) and _stated(tokens, j, ctx, value):
                    return j
                # "the PINs: debit 4471, credit 9382": a label, then the value.
                labelled = ctx.kind == "pin" and value.isalpha() and j + 1 < limit
                if not (labelled and _direct(tokens[j + 1].core)):
                    return None
                j += 1
                continue
            if j == i and _direct(t.core):
                return j
            # "ssh root@host with password toor": a plain word closing "with password".
            introduced = own > 0 and _apostrophe(tokens[own - 1].core) in ("with", "using")
            last = t.ends_sentence or j + 1 == len(tokens)
            if j == i and introduced and last and plausible_value(t.core):
                return j
            if j == i and (low in PREPOSITIONS or _opens_clause(low) or low in MODIFIERS):
                qualified = True
            elif not qualified:
                return None  # "password manager is 1Password": not the password
        elif ctx.kind in _SPELLED_KINDS and (seen_connector or j == i) and _spelled_at(tokens, j):
            return j  # "my code is zero eight one five", "opens on eleven twenty two ..."
        elif (
            (j < base or (seen_connector and _closes(tokens, j)))
            and _candidate(tokens, j, ctx) is not None
            and (not ctx.opens_a_thing or _closes(tokens, j) or _names_a_thing(tokens, own, at))
        ):
            return j
        if t.ends_sentence and seen_connector and _paused(tokens, j) and j + 1 < len(tokens):
            # "the password is... Lighthouse77": a pause after the verb, then the value
            if _direct(tokens[j + 1].core) or spelled_run(tokens, j + 1) > j + 1:
                return j + 1
            return None
        if t.ends_sentence:
            # "The PIN for my debit card? 0917.": the answer right after its question.
            asked = tokens.text[t.end - 1] == "?" and j + 1 < len(tokens)
            return j + 1 if asked and _direct(tokens[j + 1].core) else None
        if tokens.text[t.end - 1] in ":=":
            seen_connector = True  # "the password for the nas: X"
        j += 1
    return None


_THING_REACH = 60  # characters before a verb of access where the thing it opens is named


# An exhibition, an album or a season opens with something too; what is disarmed or
# unlocked is always a thing that opens with a code.
_OPEN_VERB = patterns.compile(
    r"(?i)(?:s['’]|se\s+|si\s+|on\s+)?(?:open|ouvr|abr|apr|öffn|oeffn|gaa?t|gaan|ging)"
)


def _names_a_thing(tokens: Tokens, own: int, at: int) -> bool:
    """Whether the sentence names the thing a verb of access (token ``own``, its match
    ending at ``at``) opens, shortly before it: "the side gate opens with 7741 at
    night"; a verb that only ever opens a thing names it itself ("disarm with X")."""
    if own >= len(tokens):
        return False
    if not _OPEN_VERB.match(tokens.text, tokens[own].start, at):
        return True
    at = tokens[own].start
    lo = max(0, at - _THING_REACH)
    before = [e.end() for e in _SENTENCE_END.finditer(tokens.text, lo, at)]
    return _ACCESS_OBJECT.search(tokens.text, before[-1] if before else lo, at) is not None


def _paused(tokens: Tokens, j: int) -> bool:
    """Whether token ``j`` ends in an ellipsis: a pause, not the end of a sentence."""
    raw = tokens.text[tokens[j].start : tokens[j].end]
    return raw.endswith(("...", "…"))


_SPELLED_KINDS = ("pin", "one_time_code")
# A question about a credential's time, length or count asks for no credential.
_ASKS_ABOUT = patterns.compile(
    r"(?i)\b(?:when|what\s+(?:year|month|day|date|time)|which\s+(?:year|month|day)|"
    r"how\s+(?:long|often|many|old|much))\b[^.!?]{0,60}$"
)
_COMBINATION = patterns.compile(r"(?i)combos?|combinations?")
_LOCK_BEFORE = patterns.compile(
    r"(?i)\b(?:lock|safe|locker|padlock|suitcase|briefcase|bike|vault|lockbox)(?:'s)?\s+"
    r"(?:\w+\s+)?$"
)
_ASKED_ALONE = patterns.compile(r"(?i)\b(?:the|my|your)\s+$")


def _of_a_lock(text: str, m: _Found) -> bool:
    """A combination that opens something: "remember my locker combo", "what's the
    combination?" (asked alone), not "a combination of styles" nor "these possible
    combinations"."""
    if _LOCK_BEFORE.search(text, max(0, m.start() - 30), m.start()):
        return True
    alone = text[m.end() : m.end() + 2].lstrip()[:1] == "?"
    return alone and _ASKED_ALONE.search(text, max(0, m.start() - 8), m.start()) is not None


_LOGIN_WORD = patterns.compile(r"(?i)login|log-?in|credentials?|creds")
# A request for the thing itself: "what's the code", "send me your login", "tell me the
# credentials" (not "the code of conduct", "the login page"); a bare code only asked
# what it is ("can you share the code?" in a chat about programs asks for a program).
_WHAT_IS = r"what(?:'s|’s|\s+is|\s+was|s)"
_ASKS_FOR = patterns.compile(
    r"(?i)(?<!\w)(?:" + _WHAT_IS + r"|what\s+are|what\s+were|send|give|tell|share|remind|"
    r"text|dm)\s+(?:me\s+|us\s+)?(?:of\s+)?(?:the|your|ur|our)\s+$"
)
_ASKS_WHAT = patterns.compile(r"(?i)(?<!\w)" + _WHAT_IS + r"\s+(?:the|your|ur|our)\s+$")
_ASKED_AFTER = patterns.compile(
    r"(?i)\s*(?:\?|(?:for|to)\s+(?:the\s+|my\s+|our\s+)?[\w-]{2,20}\s*\?)"
)


def _asked_for(text: str, m: _Found, bare_code: bool) -> bool:
    """Whether the word is asked for as such, the question closing right after it or
    after what it is for ("what's the login for the router?")."""
    asks = _ASKS_WHAT if bare_code else _ASKS_FOR
    if asks.search(text, max(0, m.start() - 24), m.start()) is None:
        return False
    return _ASKED_AFTER.match(text, m.end()) is not None


def _spelled_at(tokens: Tokens, j: int) -> bool:
    return spelled_run(tokens, j) > j


def _opens_clause(word: str) -> bool:
    """A subject, a relative or a determiner opening a clause or a noun phrase between a
    secret word and its value ("the PIN I set", "the password the hotel gave us",
    "het wachtwoord dat ik", "a senha que eu uso")."""
    low = _apostrophe(word)
    # "you'll", "we've", "I'd": the subject of a clause, contracted with its verb
    head, mark, tail = low.partition("'")
    if mark and tail in _CONTRACTIONS:
        low = head
    return low in CLAUSE_OPENERS or low in DETERMINERS or _elided_of(low)


_CONTRACTIONS = frozenset(("ll", "ve", "d", "re", "m", "s"))
# An elided preposition or article before a noun: "la porte d'entrée", "il codice
# dell'allarme", "l'alarme".
_ELIDED = ("d'", "l'", "dell'", "dall'", "all'", "nell'", "sull'", "qu'")


def _elided_of(low: str) -> bool:
    return low.startswith(_ELIDED) and len(low) > 3


def _closes(tokens: Tokens, j: int) -> bool:
    """Whether the value at ``j`` closes its clause ("... is 7306", "... is 7306, so"),
    not a count of something ("... is 3000 lines")."""
    t = tokens[j]
    if t.ends_sentence or t.end > t.core_start + len(t.core) or j + 1 == len(tokens):
        return True
    return tokens[j + 1].core.casefold() in _CLAUSE_CLOSERS


def _backward(tokens: Tokens, i: int, ctx: _Context) -> int | None:
    """A value said before its context word: "X is the password", "use X as the
    password", "482913 is your login code", "Enter X when it asks for the code"."""
    lo = max(0, i - 9)
    for j in range(i - 1, lo - 1, -1):
        if tokens[j].ends_sentence:
            lo = j + 1
            break
    for j in range(lo, i):
        t = tokens[j]
        ok = _direct(t.core) if ctx.strong else _candidate(tokens, j, ctx) is not None
        if not ok:
            continue
        if ctx.self_evident:
            return j
        nxt = tokens[j + 1].core.casefold() if j + 1 < len(tokens) else ""
        prev = _apostrophe(tokens[j - 1].core) if j > lo else ""
        if (nxt in _BACKWARD_CONNECTORS and j + 1 >= i - 5) or prev in _USE_VERBS:
            return j
        # "it's 8841, the code for the front door": the value, then the word naming it.
        appositive = tokens.text[t.end - 1] in ",:—-" or nxt in ("—", "-")
        between = {tokens[k].core.casefold() for k in range(j + 1, i)} - {"—", "-", ""}
        if (appositive or prev in ("it's", "its", "is", "was")) and between <= DETERMINERS:
            return j
    return None


_AHEAD_CHARS = 200  # how far a value may follow its context word, at most
_BEHIND_CHARS = 120


def _around(tokens: Tokens, m: _Found) -> tuple[int, int]:
    """(the index of the first token after a context match, the index of its own first
    token)."""
    own = tokens.containing(m.start())
    last = tokens.containing(max(m.start(), m.end() - 1))
    return max(own, last + 1), own


def _login_pairs(text: str, tokens: Tokens) -> Iterator[Span]:
    """ "login: bob / X", "credentials are bob/X": the part after the slash."""
    for m in _LOGIN.finditer(text):
        i, _ = _around(tokens, m)
        for j in range(i, min(len(tokens), i + 5)):
            core = tokens[j].core
            if core == "/" and j + 1 < len(tokens) and plausible_value(tokens[j + 1].core):
                t = tokens[j + 1]
                yield t.core_start, t.core_start + len(t.core), "password"
                break
            if "/" in core and "://" not in core:
                user, _, secret = core.partition("/")
                # "user/Kestrel29", not "user/license" nor "normal/wide": a word joined
                # to another by a slash is a pair of words
                if user and secret and "/" not in secret and chosen_value(secret):
                    at = tokens[j].core_start + len(user) + 1
                    yield at, at + len(secret), "password"
                    break
            if tokens[j].ends_sentence:
                break


def _seed_phrases(text: str, tokens: Tokens) -> Iterator[Span]:
    for m in _SEED_CONTEXT.finditer(text):
        i, _ = _around(tokens, m)
        j = i
        while j < min(len(tokens), i + 5) and (
            not _seed_word(tokens[j]) or tokens[j].core.casefold() in _SEED_LEAD
        ):
            if tokens[j].ends_sentence and j > i:
                break
            j += 1
        k = j
        while k < len(tokens) and k < j + 30 and _seed_word(tokens[k]):
            k += 1
            if tokens[k - 1].ends_sentence or _marked(tokens, k - 1):
                break  # a seed phrase has no mark inside: "..., and so on, ..." is prose
        words = [tokens[n].core.casefold() for n in range(j, k)]
        functional = sum(w in FUNCTION_WORDS for w in words)
        if not distinct_words(words):
            continue
        # "the passphrase is correct horse battery staple": a few plain words, alone.
        closes = tokens[k - 1].ends_sentence or k == len(tokens)
        phrase = "phrase" in m.group(0).casefold() and closes
        described = any(w in DIGIT_WORDS or w in _DESCRIBING for w in words)
        short = phrase and len(words) >= 3 and not functional and not described
        # A wallet's list holds a few short common words ("about", "all", "again"), as
        # many as chance gives; prose a function word in every few.
        if (len(words) >= 12 and functional <= 2) or (len(words) >= 6 and functional <= 1) or short:
            last = tokens[k - 1]
            yield tokens[j].core_start, last.core_start + len(last.core), "seed_phrase"


# What a phrase is said to be, not the phrase: "the passphrase is three random words".
_DESCRIBING = words("words word random letters characters long short easy hard secure weak strong")


def _marked(tokens: Tokens, k: int) -> bool:
    """Whether token ``k`` carries a mark after its word ("mountain,", "so;")."""
    t = tokens[k]
    return t.end > t.core_start + len(t.core)


def _seed_word(t: Token) -> bool:
    core = t.core.casefold()
    return core.isalpha() and core == t.core.lower() and 2 <= len(core) <= 10


_SEED_LEAD = words("is are was were it's its they them these those my the our be")
_SEED_CONTEXT = _ctx(
    r"seed(?:\s+(?:phrase|words))?|recovery\s+(?:phrase|words|seed|key)|mnemonic(?:\s+phrase)?|"
    r"backup\s+(?:phrase|words)|secret\s+(?:phrase|words|recovery\s+phrase)|"
    r"(?:twelve|12|24|twenty-four|18)\s+words|wallet\s+words|passphrase"
)


_ANY_CONTEXT = _any_of(ctx.pattern for ctx in _CONTEXTS)


_NEW_SUBJECT = words("i we you he she they it i'm we're it's")
_LIST_ITEMS = 12  # values read after the first one
_LIST_GAP = 5  # words between two values ("4410 for the debit card and 7782")


def _listed(tokens: Tokens, j: int, kind: str, secret_words: frozenset[int]) -> Iterator[Span]:
    """Every further value of a list after the first ("recovery codes: 1111-2222,
    3333-4444, 5555-6666", "the PINs are 4410 for the debit card and 7782 for the
    credit card"): a value of the same kind's shape within a few words of the last, in
    the same sentence, until a clause with its own subject begins ("and I ...") or
    another secret word naming its own value does ("... and my PIN is 4821": the PIN's
    value, not the list's; ``secret_words`` holds where each strong secret word
    starts; "the debit card" names what a PIN is for)."""
    gap = items = 0
    while j < len(tokens) and items < _LIST_ITEMS and gap <= _LIST_GAP:
        t = tokens[j]
        if t.core.casefold() in _NEW_SUBJECT or tokens[j - 1].ends_sentence:
            return
        if t.core_start in secret_words:
            return
        if _direct(t.core):
            yield t.core_start, t.core_start + len(t.core), kind
            items, gap = items + 1, 0
        else:
            gap += 1
        j += 1


class _Typo(NamedTuple):
    """A secret word typed with a typo, read as a match of its context's pattern."""

    at: int
    stop: int
    word: str

    def start(self) -> int:
        return self.at

    def end(self) -> int:
        return self.stop

    def group(self, _: int = 0) -> str:
        return self.word


_Found = re.Match[str] | _Typo
# The strong context of each kind a typo can open (fuzzy.TYPO_TARGETS).
_TYPO_CONTEXTS = {ctx.kind: ctx for ctx in reversed(_CONTEXTS) if ctx.strong}


def _context_matches(text: str) -> Iterator[tuple[_Context, _Found]]:
    """Every (context, match) in the text: one scan finds where some context word starts,
    then each context is tried there; then the secret words typed with a typo."""
    pos = 0
    while (hit := _ANY_CONTEXT.search(text, pos)) is not None:
        for ctx in _CONTEXTS:
            m = ctx.pattern.match(text, hit.start())
            if m is not None:
                yield ctx, m
        pos = hit.start() + 1
    for w in WORD.finditer(text):
        kind = typo_kind(w.group(0))
        if kind is not None:
            yield _TYPO_CONTEXTS[kind], _Typo(w.start(), w.end(), w.group(0))


def contextual(text: str) -> Iterator[Span]:
    tokens = Tokens(text)
    matches = list(_context_matches(text))
    secret_words = frozenset(m.start() for ctx, m in matches if ctx.strong)
    for ctx, m in matches:
        bare_code = ctx.kind == "one_time_code" and m.group(0).casefold() in ("code", "codes")
        if bare_code and _CODE_EXCLUDED.search(text, max(0, m.start() - 20), m.start()):
            continue  # a zip code, a dress code, an error code
        if ctx.needs is not None:
            lo, hi = max(0, m.start() - _BEHIND_CHARS), m.end() + _AHEAD_CHARS
            spelled = ctx.kind in _SPELLED_KINDS and _THREE_SPELLED.search(text, lo, hi)
            if not ctx.needs.search(text, lo, hi) and not spelled:
                continue
        after, own = _around(tokens, m)
        found = _forward(text, tokens, after, m.end(), ctx, own)
        if found is None:
            found = _backward(tokens, own, ctx)
        if found is not None:
            start, end = value_span(tokens, found, ctx.numeric, quoted=ctx.strong)
            past = spelled_run(tokens, found)
            if past > found:
                last = tokens[past - 1]
                end = last.core_start + len(last.core)
            if start < end:
                yield start, end, ctx.kind
                yield from _listed(tokens, tokens.after(end), ctx.kind, secret_words)
    yield from _login_pairs(text, tokens)
    yield from _seed_phrases(text, tokens)
    yield from _access_purpose(text, tokens)
    yield from _entry_codes(text, tokens)
    for m in _OBJECT_CODE.finditer(text):
        yield m.start("s"), m.end("s"), "pin"
    for m in _NETWORK_LABEL.finditer(text):
        value = m.group("s").rstrip(".,;!?)")
        if "://" not in value and looks_secret(value) and any(not c.isalpha() for c in value):
            yield m.start("s"), m.start("s") + len(value), "password"


# "to switch the alarm off, enter 4093", "to get into the building dial 2214", "to open
# the lockbox, spin it to 2-7-4": a purpose of access, then a verb of entry and the code.
_PURPOSE = _ctx(
    r"to\s+(?:(?:switch|turn|shut|power)\s+(?:(?:the|my|our|it)\s+)?(?:\w+\s+)?(?:off|on)|"
    r"(?:switch|turn|shut)\s+off|open|unlock|disarm|deactivate|arm|silence|reset|"
    r"get\s+in(?:to|side)?|get\s+through|enter|access)|"
    # "I get into the flat by entering 9931", "you open the shed by dialling 3-1-4"
    r"(?:gets?|getting|got)\s+in(?:to|side)?|opens?|opening|unlocks?|unlocking|disarms?|"
    r"disarming"
)
_ENTRY_VERBS = words(
    "enter type dial key punch press tap spin turn input use hit push put code entering "
    "typing dialing dialling keying punching pressing tapping spinning inputting"
)
_ENTRY_LEADS = words("in it to the then just simply and , on")
_PURPOSE_REACH = 12  # tokens from the purpose to its entry verb
# A thing that opens, then its code closing the clause: "the gate: 5578", "garage
# opener: 3381", "alarm 7721, gate 9902" (four digits or more when no mark comes
# between: "gate 104" is an airport's), "the suitcase lock is set to 318".
_OPENER = (
    r"(?:front\s+|back\s+|side\s+|garage\s+)?doors?|gates?|garage(?:\s+opener)?|alarm|safe|"
    r"lockbox|padlock|keypad|shed|lock"
)
_OBJECT_CODE = patterns.compile(
    r"(?i)(?<![\w-])(?:" + _OPENER + r")(?:\s*[:=]\s*|\s+(?=\d{4,8}(?![\d:.]))|"
    r"\s+(?:is\s+|was\s+)?set\s+to\s+)(?P<s>\d(?:-?\d){2,11})"
    # closing its clause: not "gate 2019 edition", "the lock: 2019 model"
    r"(?=\s*$|[,;!?)]|\.(?!\d)|\s+(?:and|or|but|btw|lol)\b|\s+\(|\s+[/|·•](?!\S))"
)
# A network named as a label, its password after the mark: "wifi: Bluebell#Wood3",
# "WLAN = Otter-Bay-17 / alarm: 6049" (a value that looks chosen: not "wifi: down").
_NETWORK_LABEL = patterns.compile(
    r"(?i)(?<![\w-])(?:wi-?fi|wlan|hotspot|router|ssid\s+pw)\s{0,3}[:=]\s{0,3}"
    r"(?P<s>[^\s\"'`/:][^\s\"'`]{3,100})"
    # closing its clause: not "wifi: 5GHz band is faster"
    r"(?=\s*$|[,;!?)]|\.(?!\S)|\s+(?:and|or|but)\b|\s+[/|·•](?!\S))"
)
# What a code opens: the purpose must name one ("to get into college ... I hit 1500" is
# no code).
_ACCESS_OBJECT = patterns.compile(
    r"(?i)(?<!\w)(?:doors?|gates?|alarms?|locks?|lockbox|padlock|safe|vault|building|garage|"
    r"house|flat|apartment|shed|lockers?|keypad|intercom|phone|tablet|laptop|system|"
    r"lockbox|suitcase|briefcase|cabinet|entrance|" + _OBJECTS + r")(?!\w)"
)


def _access_purpose(text: str, tokens: Tokens) -> Iterator[Span]:
    for m in _PURPOSE.finditer(text):
        if not _THREE_DIGITS.search(text, m.end(), m.end() + _AHEAD_CHARS) and not (
            _THREE_SPELLED.search(text, m.end(), m.end() + _AHEAD_CHARS)
        ):
            continue
        after, _ = _around(tokens, m)
        j = after
        while j < min(len(tokens), after + _PURPOSE_REACH):
            named = _ACCESS_OBJECT.search(text, m.start(), tokens[j].start)
            if tokens[j].core.casefold() in _ENTRY_VERBS and named:
                k = j + 1
                while k < min(len(tokens), j + 4) and tokens[k].core.casefold() in _ENTRY_LEADS:
                    k += 1
                if k < len(tokens) and (found := _code_at(tokens, k)) is not None:
                    yield found
                    break
            if tokens[j].ends_sentence:
                break
            j += 1


# "Enter 3321 at the gate", "use 9081 for the garage", "press 1234 then OK on the alarm
# panel": a verb of entry and a code, a thing that opens in the same sentence.
_ENTRY = _ctx(r"enter|type|dial|key|punch|press|tap|use|input|entering|typing|dialing|dialling")
_SENTENCE_END = patterns.compile(r"[.!?\n](?:\s|$)")
_ENTRY_SPAN = 80  # characters either side of the code where the thing it opens is named


def _entry_codes(text: str, tokens: Tokens) -> Iterator[Span]:
    for m in _ENTRY.finditer(text):
        if not _THREE_DIGITS.search(text, m.end(), m.end() + 24):
            continue
        k = tokens.after(m.end())
        while k < min(len(tokens), k + 2) and tokens[k].core.casefold() in ("in", "the", "code"):
            k += 1
        if k >= len(tokens) or (found := _code_at(tokens, k)) is None:
            continue
        if _counted_or_timed(tokens, k, found[1]):
            continue
        lo = max(0, m.start() - _ENTRY_SPAN)
        before = [e.end() for e in _SENTENCE_END.finditer(text, lo, m.start())]
        lo = before[-1] if before else lo
        stop = _SENTENCE_END.search(text, found[1], found[1] + _ENTRY_SPAN)
        hi = stop.start() if stop else min(len(text), found[1] + _ENTRY_SPAN)
        if _ACCESS_OBJECT.search(text, lo, hi):
            yield found


def _code_at(tokens: Tokens, k: int) -> Span | None:
    """The code said at token ``k``: three or more digits, or as many spelled."""
    past = spelled_run(tokens, k)
    if past > k:
        last = tokens[past - 1]
        return tokens[k].core_start, last.core_start + len(last.core), "pin"
    core = tokens[k].core
    if digit_group(core) and len(digits_of(core)) >= 3:
        start, end = value_span(tokens, k, True)
        return start, end, "pin"
    return None


# Only the close of a turn asks for what the next turn answers ("..., so what's the door
# code?"); a long explanation that mentions passwords on the way asks for none.
OPENER_WORDS = 40
# A particular credential, not passwords as a topic ("a strong password", "bent pins",
# "passwords and settings"): a definite or possessive determiner or a question word
# shortly before it ("the PIN", "my bank password", "what PIN", "la contraseña").
_PARTICULAR = (DETERMINERS - {"a", "an"}) | words(
    "what what's whats which which's your ur here's heres cuál cual quel quelle qual wat "
    "wie welche welcher welches welk welke quale this dein deine tu ton ta tua teu sua su "
    "votre vostra"
)
_PARTICULAR_REACH = 3  # words between the determiner and the credential word


def _opening_start(text: str) -> int:
    """Where the close of the turn begins: its last ``OPENER_WORDS`` words."""
    ends = [m.start() for m in _WORD_START.finditer(text)]
    return ends[-OPENER_WORDS] if len(ends) > OPENER_WORDS else 0


_WORD_START = patterns.compile(r"(?<!\S)\S")


def _particular(tokens: Tokens, m: _Found) -> bool:
    """Whether the credential word names one credential: a determiner or a question word
    shortly before it, and the word itself no plural of a PIN or a password."""
    own = tokens.containing(m.start())
    for k in range(max(0, own - _PARTICULAR_REACH), own):
        if _apostrophe(tokens[k].core) in _PARTICULAR:
            return True
    return own < len(tokens) and tokens[own].core_start < m.start()  # "WLAN-Passwort"


def credential_mentions(text: str) -> Iterator[str]:
    """The kind of every password, PIN or one-time code the close of the text names for
    one credential, value or not (a bare "code" or "key" names none: a zip code, the
    key to success)."""
    tokens = Tokens(text)
    close = _opening_start(text)
    for ctx, m in _context_matches(text):
        if m.start() < close:
            continue
        word = m.group(0).casefold()
        plural = ctx.kind in ("pin", "password") and word.endswith("s") and word[-2:] != "ss"
        if plural or not _particular(tokens, m):
            continue
        bare_code = m.group(0).casefold() in ("code", "codes")
        if _ASKS_ABOUT.search(text, max(0, m.start() - 60), m.start()):
            continue  # "what year did you change your password?": not the password
        # A lock's combination is one too ("remember my locker combo").
        combination = _COMBINATION.fullmatch(m.group(0)) and _of_a_lock(text, m)
        if ctx.strong or (ctx.kind == "one_time_code" and not bare_code) or combination:
            yield ctx.kind
        elif (bare_code or _LOGIN_WORD.fullmatch(m.group(0))) and _asked_for(text, m, bare_code):
            # "what's the code?", "what's the login for the router?": asked for itself
            yield ctx.kind
