"""Query expansion from a small curated lexicon: a question's general word admits the
specific words a statement uses for it ("Is there a medicine I should avoid?" meets
"User is allergic to ibuprofen"; "What pets does she have?" meets "a guinea pig").

The lexicon is general English (hypernym -> common hyponyms and near-synonyms; an
irregular verb's base form -> its past and participle), never a dataset's own words;
keys and values are stems as the tokenizer makes them, so a key matches every inflection
of its word. Expansion terms admit rows like the question's own terms: BM25 weighs them
by their rarity like any term.
"""

from __future__ import annotations

from functools import cache

from memory_es.retrieval.tokenizer import stem

_LEXICON: dict[str, tuple[str, ...]] = {
    "kid": ("son", "daughter", "child", "children", "kids", "baby"),
    "children": ("son", "daughter", "kid", "kids", "baby"),
    "famili": (
        "mom",
        "dad",
        "mother",
        "father",
        "sister",
        "brother",
        "son",
        "daughter",
        "wife",
        "husband",
        "parents",
        "kids",
    ),
    "partner": ("wife", "husband", "girlfriend", "boyfriend", "fiance", "fiancee", "spouse"),
    "spous": ("wife", "husband", "partner"),
    "job": ("work", "works", "career", "hired", "position", "employer"),
    "career": ("job", "work", "profession"),
    "medicin": ("allergic", "allergy", "medication", "pills", "prescription"),
    "allergi": ("allergic",),
    "sport": (
        "basketball",
        "football",
        "soccer",
        "tennis",
        "baseball",
        "hockey",
        "golf",
        "volleyball",
        "swimming",
        "running",
    ),
    "instrument": ("guitar", "piano", "violin", "drums", "cello", "flute", "saxophone", "ukulele"),
    "music": ("song", "songs", "album", "band", "concert", "guitar", "piano", "sing"),
    "hobbi": ("enjoy", "enjoys", "love", "loves", "passion", "pastime"),
    "book": ("novel", "novels", "read", "reading", "author"),
    "movi": ("film", "films", "watched", "cinema", "netflix"),
    "film": ("movie", "movies", "watched", "cinema"),
    "trip": ("travel", "traveled", "visited", "vacation", "journey", "went"),
    "travel": ("trip", "visited", "vacation", "journey"),
    "vacat": ("trip", "holiday", "travel", "visited"),
    "citi": ("live", "lives", "moved", "town"),
    "car": ("drive", "drives", "vehicle"),
    "food": ("eat", "cook", "dish", "meal", "recipe"),
    "meal": ("food", "dinner", "lunch", "breakfast", "cook"),
    "exercis": ("workout", "gym", "running", "yoga", "training"),
    "art": ("painting", "paint", "drawing", "sculpture"),
    # Health: an ailment is named by what it is, a medicine question by what to avoid.
    "ailment": ("sick", "illness", "disease", "flu", "fever", "infection", "injury", "pain"),
    "ill": ("sick", "illness", "disease", "flu", "fever", "infection"),
    "sick": ("ill", "illness", "disease", "flu", "fever", "infection"),
    "health": ("sick", "illness", "doctor", "hospital", "diagnosed", "surgery", "diet"),
    "injuri": ("injured", "hurt", "broke", "sprained", "fracture", "surgery"),
    "doctor": ("physician", "dentist", "clinic", "hospital", "appointment", "check-up"),
    "pet": (
        "dog",
        "cat",
        "puppy",
        "kitten",
        "pup",
        "hamster",
        "parrot",
        "turtle",
        "rabbit",
        "snake",
        "fish",
        "bird",
        "horse",
        "lizard",
    ),
    "anim": ("dog", "cat", "horse", "bird", "fish", "rabbit", "turtle", "snake"),
    "martial": ("karate", "judo", "taekwondo", "kickboxing", "jiu-jitsu", "boxing", "kung"),
    "danc": ("ballet", "salsa", "tango", "hip-hop", "contemporary", "choreography"),
    "outdoor": ("hiking", "camping", "kayaking", "fishing", "climbing", "biking", "hike"),
    "flower": ("rose", "roses", "tulip", "lily", "daisy", "sunflower", "orchid", "garden"),
    "plant": ("garden", "gardening", "flowers", "tree", "succulent", "herbs"),
    "holiday": ("christmas", "thanksgiving", "easter", "halloween", "hanukkah", "diwali"),
    "celebr": ("birthday", "anniversary", "party", "wedding", "christmas", "thanksgiving"),
    "drink": ("coffee", "tea", "wine", "beer", "juice", "cocktail", "soda"),
    "languag": ("spanish", "french", "german", "italian", "japanese", "chinese", "english"),
    "countri": ("abroad", "visited", "travel", "trip", "moved"),
    "school": ("college", "university", "class", "degree", "studying", "graduated"),
    "studi": ("college", "university", "class", "degree", "course", "major"),
    "educ": ("college", "university", "degree", "school", "graduated"),
    "friend": ("buddy", "buddies", "pal", "mate", "mates"),
    "sibl": ("sister", "brother", "sisters", "brothers"),
    "parent": ("mom", "dad", "mother", "father"),
    # Everyday topics a request names by its field and a statement by its things ("my
    # photography setup" / "a Sony camera", "what to bake" / "a lemon cake").
    "photographi": ("camera", "lens", "lenses", "photos", "tripod", "flash"),
    "photo": ("camera", "lens", "photography"),
    "camera": ("lens", "lenses", "photography", "tripod"),
    "evening": ("night", "pm", "tonight", "bedtime"),
    "tonight": ("evening", "night"),
    "night": ("evening", "pm", "bedtime"),
    "tv": ("show", "series", "episode", "netflix", "hulu", "sitcom"),
    "batteri": ("charge", "charger", "charging", "power"),
    "phone": ("smartphone", "iphone", "android", "charger"),
    "gadget": ("phone", "laptop", "tablet", "headphones", "smartwatch"),
    "tech": ("phone", "laptop", "tablet", "computer", "gadget"),
    "comput": ("laptop", "pc", "desktop", "mac"),
    "bake": ("cake", "cookies", "bread", "muffins", "pie", "oven", "dough", "pastry"),
    "cooki": ("bake", "baking", "dough", "oven"),
    "dessert": ("cake", "pie", "cookies", "pudding", "ice", "pastry"),
    "dinner": ("meal", "cook", "cooking", "recipe", "dish"),
    "cook": ("recipe", "dish", "meal", "bake", "kitchen"),
    "recip": ("cook", "cooking", "dish", "meal", "ingredients"),
    "ingredi": ("recipe", "spices", "herbs", "vegetables"),
    "homegrown": ("garden", "grow", "grew", "harvest", "harvested"),
    "garden": ("plants", "grow", "harvest", "seeds", "vegetables", "herbs"),
    "furnitur": ("sofa", "couch", "dresser", "table", "chair", "desk", "bed", "bookshelf"),
    "decor": ("furniture", "rug", "curtains", "paint", "wall"),
    "public": ("paper", "papers", "article", "articles", "journal", "research"),
    "confer": ("summit", "workshop", "symposium", "research"),
    "cocktail": ("drink", "mixology", "bartending", "gin", "rum", "vodka", "whiskey"),
    "cloth": ("dress", "shirt", "jeans", "shoes", "jacket", "wardrobe"),
    "outfit": ("dress", "shirt", "jeans", "shoes", "jacket"),
    "fashion": ("dress", "shirt", "jeans", "shoes", "jacket", "wardrobe", "style"),
    "clean": ("dust", "vacuum", "tidy", "declutter"),
    "sneez": ("allergy", "allergic", "allergies", "dust", "pollen"),
    "sleep": ("bedtime", "insomnia", "nap", "night"),
    "hotel": ("stay", "accommodation", "airbnb", "resort"),
    "restaur": ("dinner", "cuisine", "dining", "eat"),
    "coffe": ("espresso", "latte", "cappuccino", "brew"),
    "gift": ("present", "birthday"),
}
# Irregular verbs: a question asks in the base form ("Where did I go?", "What did she
# buy?") and a statement tells in the past ("User went to Lisbon", "bought"), which no
# stemmer joins. Base form -> past and participle (general English, the common ones).
_IRREGULAR_VERBS = (
    "begin began begun|break broke broken|bring brought|build built|buy bought|"
    "catch caught|choose chose chosen|come came|draw drew drawn|drink drank drunk|"
    "drive drove driven|eat ate eaten|fall fell fallen|feel felt|fight fought|find found|"
    "fly flew flown|forget forgot forgotten|get got gotten|give gave given|go went gone|"
    "grow grew grown|hear heard|hold held|keep kept|know knew known|lead led|leave left|"
    "lose lost|make made|meet met|pay paid|ride rode ridden|run ran|see saw seen|"
    "sell sold|send sent|sing sang sung|sleep slept|speak spoke spoken|spend spent|"
    "stand stood|swim swam swum|take took taken|teach taught|tell told|think thought|"
    "throw threw thrown|wear wore worn|win won|write wrote written"
)
_FORMS: dict[str, tuple[str, ...]] = {
    stem(base): tuple(forms)
    for base, *forms in (entry.split() for entry in _IRREGULAR_VERBS.split("|"))
}
# The lexicon's keys (its own are stems; a verb's base form is stemmed above). A key's
# expansion is stemmed when a question first holds it: stemming all ~600 words at
# import was ~6.5 ms of CPU in every process that recalls once (light start-up:
# memory_es/startup.py).
_KEYS = frozenset(_LEXICON.keys() | _FORMS.keys())


@cache
def _expansion(key: str) -> frozenset[str]:
    return frozenset(stem(w) for w in (*_LEXICON.get(key, ()), *_FORMS.get(key, ())))


def expand(terms: set[str]) -> set[str]:
    """The stems the lexicon adds to a question's stems (none already there)."""
    added: set[str] = set()
    for term in terms:
        if term in _KEYS:
            added |= _expansion(term)
    return added - terms


def every_expansion() -> dict[str, frozenset[str]]:
    """Every key's expansion, stemmed (the table ``expand`` reads, built whole)."""
    return {key: _expansion(key) for key in sorted(_KEYS)}
