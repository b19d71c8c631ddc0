"""A word-for-word English gloss of the words that carry an instruction to an assistant.

The screen's classifier (:mod:`.classifier`) learns from English-language training sets;
an order to a model reads the same in Spanish or German once its words are glossed:
"Ignora tus directrices" is "ignore your guidelines". This is a bilingual lexicon, not a
list of phrasings: each entry is one word of French, Spanish, German, Portuguese,
Italian or Dutch (accents stripped, casefolded, as the screen's views read it) mapped to
the English word of the same concept — who is addressed (second person), who orders
(first person), what the assistant is made of (rules, instructions, training, prompt,
mode, limits) and what is done to it (ignore, override, reveal, obey, act as).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from memory_es.formation.hazards.language import ENGLISH_FUNCTION_WORDS, word_set


def _entries(english: str, words: str) -> dict[str, str]:
    return {word: english for word in words.split()}


# One entry an English concept: who is addressed, who orders, what the assistant is made
# of, and what is done to it.
GLOSS: dict[str, str] = {
    **_entries(
        "you", "tu vos usted ustedes vosotros te ti contigo vous toi du dich dir voce voces jij jou"
    ),
    **_entries(
        "your",
        "tus tuyo tuya tuyos tuyas su sus vuestro vuestra vuestros vuestras tes votre "
        "dein deine deinen deinem deiner deines ihr ihre ihren ihrem ihrer euer eure seu "
        "sua seus suas teu tua teus tuas tuo tue tuoi vostro vostra vostri vostre jouw uw",
    ),
    **_entries(
        "my",
        "mi mis mio mia mios mias mon ma mes mein meine meinen meinem meiner meines meu "
        "minha meus minhas miei mie mijn",
    ),
    **_entries("me", "moi mich mir mim mij"),
    **_entries(
        "instructions",
        "instruccion instrucciones instruction instructions consigne consignes anweisung "
        "anweisungen instruktion instruktionen anleitung instrucao instrucoes istruzione "
        "istruzioni instructie instructies aanwijzing aanwijzingen",
    ),
    **_entries(
        "rules",
        "regla reglas norma normas regle regles regel regeln regra regras regola regole regels",
    ),
    **_entries(
        "guidelines",
        "directriz directrices pauta pautas lineamientos ligne lignes directrice "
        "richtlinie richtlinien leitlinien diretriz diretrizes orientacao orientacoes "
        "linee guida direttiva direttive richtlijn richtlijnen",
    ),
    **_entries(
        "directives",
        "directiva directivas directive directives direktive direktiven vorgabe vorgaben "
        "diretiva diretivas",
    ),
    **_entries(
        "commands",
        "orden ordenes comando comandos mandato mandatos ordre ordres commande commandes "
        "befehl befehle kommando kommandos ordem ordens comandi ordine ordini opdracht "
        "opdrachten bevel bevelen",
    ),
    **_entries(
        "requests",
        "peticion peticiones solicitud solicitudes pedido pedidos demande demandes "
        "requete requetes anfrage anfragen wunsch wunsche solicitacao solicitacoes "
        "richiesta richieste verzoek verzoeken",
    ),
    **_entries(
        "restrictions",
        "restriccion restricciones limitacion limitaciones restriction restrictions "
        "limitation limitations einschrankung einschrankungen beschrankung beschrankungen "
        "restricao restricoes limitacao limitacoes restrizione restrizioni limitazione "
        "limitazioni beperking beperkingen",
    ),
    **_entries(
        "limits", "limite limites limiti grenze grenzen schranke schranken limiet limieten grens"
    ),
    **_entries("boundaries", "frontera fronteras frontiere frontiera confini"),
    **_entries(
        "programming",
        "programacion programmation programmierung programacao programmazione "
        "programmering programado programada programados programadas programmiert "
        "programmierte programmato programmata programmati geprogrammeerd",
    ),
    **_entries(
        "training",
        "entrenamiento formacion entrainement ausbildung trainingsdaten treinamento "
        "formacao addestramento formazione",
    ),
    **_entries(
        "protocol",
        "protocolo protocolos protocole protocoles protokoll protokolle protocollo "
        "protocolli protocol protocollen",
    ),
    **_entries("parameters", "parametro parametros parametre parametres parameter parametri"),
    **_entries(
        "principles",
        "principio principios principe principes prinzip prinzipien grundsatz grundsatze "
        "principi beginsel beginselen",
    ),
    **_entries("ethics", "etica ethique ethik etiche etico ethiek ethisch ethische"),
    **_entries("ethical", "eticas eticos ethiques etici"),
    **_entries(
        "filters", "filtro filtros filtre filtres filter filtri filters censura censure zensur"
    ),
    **_entries(
        "settings",
        "configuracion ajustes parametrage reglages einstellung einstellungen "
        "konfiguration configuracao configurazione impostazioni instellingen",
    ),
    **_entries("mode", "modo mode modus modalita"),
    **_entries(
        "default",
        "predeterminado predeterminada predeterminados defecto defaut padrao predefinito "
        "predefinita",
    ),
    **_entries("prompt", "indicacion indicaciones eingabeaufforderung"),
    **_entries("system", "sistema systeme systeem"),
    **_entries(
        "functions",
        "funcion funciones fonction fonctions funktion funktionen funcao funcoes funzione "
        "funzioni functie functies",
    ),
    **_entries(
        "responses",
        "respuesta respuestas reponse reponses antwort antworten resposta respostas "
        "risposta risposte antwoord antwoorden",
    ),
    **_entries(
        "secret",
        "secreto secretos secret secrets geheimnis geheim segredo segredos segreto segreti geheime",
    ),
    **_entries(
        "hidden",
        "oculto oculta ocultos ocultas cachee verborgen versteckt versteckte escondido "
        "escondida nascosto nascosta nascosti",
    ),
    **_entries(
        "password", "contrasena contrasenas clave passe passwort kennwort senha senhas wachtwoord"
    ),
    **_entries(
        "ignore",
        "ignora ignore ignorar ignoren ignorez ignorer ignoriere ignorier ignorieren "
        "ignoreer ignoreren negeer negeren ignorare ignori",
    ),
    **_entries(
        "forget",
        "olvida olvidar olvide olvidate oublie oubliez oublier vergiss vergessen esqueca "
        "esquece esquecer dimentica dimenticare dimentichi vergeet vergeten",
    ),
    **_entries(
        "disregard",
        "desestima descarta descartar omite omitir desconsidera desconsidere "
        "desconsiderar neglige negligez negliger missachte missachten trascura trascurare "
        "tralascia",
    ),
    **_entries(
        "override",
        "anula anular sobrescribe sobrepasa sobrepasar anule outrepasse outrepasser "
        "contourne contourner uberschreibe uberschreiben umgehe umgehen hebe aufheben "
        "sobrepoe sobrepor contorne contornar annulla annullare scavalca scavalcare "
        "aggira aggirare omzeil omzeilen",
    ),
    **_entries(
        "bypass",
        "evita evitar elude eludir esquiva esquivar evite eviter umgeh vermeide contorna "
        "evade evitare eludere",
    ),
    **_entries(
        "abandon",
        "abandona abandonar deja dejar abandonne abandonner laisse verlasse verlassen "
        "abandone deixa deixar abbandona abbandonare lascia verlaat",
    ),
    **_entries(
        "violate",
        "violar transgrede quebranta infringe viole violer enfreins enfreindre verletze "
        "verletzen brich brechen violare infrangi infrangere overtreed",
    ),
    **_entries(
        "deviate",
        "desvia desviate desviarse ecarte abweichen desvie desviar devia deviare afwijken",
    ),
    **_entries(
        "reveal",
        "revela revelar revele revelez reveler enthulle enthullen verrate verraten rivela "
        "rivelare divulga divulgar divulgue divulguer divulgare onthul onthullen",
    ),
    **_entries(
        "show",
        "muestra mostrar muestrame montre montrez montrer zeige zeig zeigen mostre mostra "
        "mostrare tonen",
    ),
    **_entries("tell", "dime decir dinos dites sagen diga dizer dimmi vertel vertellen"),
    **_entries("give", "dame dar donne donnez donner gib geben dai dammi geef geven"),
    **_entries(
        "share",
        "comparte compartir partage partagez partager teile teilen compartilhe "
        "compartilhar condividi condividere deel delen",
    ),
    **_entries(
        "follow",
        "sigue seguir siga suivez suivre folge folgen befolge befolgen segue seguire "
        "segui volg volgen",
    ),
    **_entries(
        "obey",
        "obedece obedecer obeis obeissez obeir gehorche gehorchen obedeca obbedisci "
        "obbedire gehoorzaam gehoorzamen",
    ),
    **_entries("act", "actua actuar actue agis agissez agir handeln aja atue atuar agisci agire"),
    **_entries("pretend", "finge fingir finja semblant fingi fingere alsof"),
    **_entries(
        "behave",
        "comportate comportarse comporte comportez comporter verhalte verhalten comporte- "
        "se comportati comportarsi gedraag gedragen",
    ),
    **_entries("operate", "operar opere operez operer funcione funcionar operare opereer"),
    **_entries(
        "switch",
        "cambia cambiar pasa changez changer wechsle wechseln mude mudar troca trocar "
        "passa passare wissel",
    ),
    **_entries(
        "enable",
        "activa activar habilita habilitar activez activer aktiviere aktivieren ative "
        "ativar habilite attiva attivare abilita abilitare activeer",
    ),
    **_entries(
        "disable",
        "desactiva desactivar desactive desactivez desactiver deaktiviere deaktivieren "
        "desative desativar disattiva disattivare disabilita",
    ),
    **_entries(
        "exceed",
        "supera superar excede exceder depasse depasser uberschreite ubersteige "
        "ultrapasse ultrapassar exceda superare oltrepassa overschrijd",
    ),
    **_entries("beyond", "jenseits ausserhalb alem oltre voorbij buiten"),
    **_entries("without", "sans ohne sem senza zonder"),
    **_entries(
        "only",
        "solamente unicamente exclusivamente seulement uniquement exclusivement nur "
        "ausschliesslich somente apenas esclusivamente soltanto alleen uitsluitend",
    ),
    **_entries("now", "ahora maintenant desormais jetzt agora adesso"),
    **_entries("henceforth", "dorenavant"),
    # What the assistant is: German KI, French, Spanish and Italian IA (an English "ai"
    # is the same word).
    **_entries("ai", "ki ia"),
    # French informal "your" (ton, ta; tes is above), and "reveal" as French and German
    # say it.
    **_entries("your", "ton ta"),
    **_entries("reveal", "devoile devoiler offenbare offenbaren"),
    **_entries("show", "affiche afficher"),
}

# A German or Dutch compound ends in its head ("Hauptanweisung" is a chief instruction,
# "Betriebsgrenzen" operating limits): a word not in the gloss that ends in a long entry
# glosses as that entry's word. Long entries only (six letters or more), so a short one
# never matches the end of an unrelated word.
_COMPOUND_HEAD = 6
_COMPOUND_STEM = 3  # letters before the head, at least
_HEADS = sorted((k for k in GLOSS if len(k) >= _COMPOUND_HEAD), key=len, reverse=True)

# Keys that are English words too ("instructions", "mode", "evade"): they say nothing of
# the language a sentence is in.
_ALSO_ENGLISH = word_set(
    """
    instruction instructions restriction restrictions limitation limitations directive
    directives filter filters parameter protocol mode secret secrets ignore censure evade
    elude infringe dame deja evite segue limite limites principe principes regle
    """
)
FOREIGN_WORDS = frozenset(k for k, v in GLOSS.items() if k != v and k not in _ALSO_ENGLISH)


@lru_cache(maxsize=1 << 16)  # a long-running server sees an open vocabulary
def gloss(word: str) -> str:
    """The English of one word (casefolded, accents stripped): its entry, else the
    entry its compound ends in, else the word itself."""
    found = GLOSS.get(word)
    if found is not None:
        return found
    if len(word) >= _COMPOUND_HEAD + _COMPOUND_STEM:
        for head in _HEADS:
            if len(word) - len(head) >= _COMPOUND_STEM and word.endswith(head):
                return GLOSS[head]
    return word


# Words that are English too but name the assistant's make-up in a sentence of another
# language (French "l'invite de formation" is the training prompt): glossed only in the
# view of a text already read as foreign (injection._model_views), never in English.
IN_FOREIGN_TEXT: dict[str, str] = {
    **_entries("prompt", "invite invites"),
    **_entries("training", "formation"),
}


def gloss_foreign(word: str) -> str:
    """:func:`gloss`, with the words :data:`IN_FOREIGN_TEXT` reads in a foreign text."""
    return IN_FOREIGN_TEXT.get(word) or gloss(word)


def foreign_word_count(words: list[str]) -> int:
    """How many of ``words`` (casefolded, accents stripped) are this lexicon's
    non-English words: two or more, and the sentence is not English."""
    return sum(1 for w in words if w in FOREIGN_WORDS)


# The speaker, in English and the gloss's languages: subject, object and possessive
# pronouns of the first person, singular and plural (French "j'", "m'" split off as "j",
# "m"). Not glossed (the model's features were learnt without these entries): read by
# :mod:`.speech`, which asks who a sentence is about, and by :func:`in_another_language`.
FIRST_PERSON = word_set(
    """
    i im me my mine myself we us our ours ourselves
    yo me mi mis mio mia mios mias conmigo nosotros nosotras nuestro nuestra nuestros nuestras
    je j moi m mon ma mes nous notre nos
    ich mich mir mein meine meinen meinem meiner meines wir uns unser unsere unseren
    unserem unserer unseres
    eu mim meu minha meus minhas comigo nosso nossa nossos nossas
    io miei mie noi nostro nostra nostri nostre
    ik mij mijn wij ons onze
    """
)
# ("m" is also what is left of English "I'm" split at its apostrophe.)
_FOREIGN_FIRST_PERSON = (
    FIRST_PERSON - ENGLISH_FUNCTION_WORDS - word_set("im m ours ourselves myself")
)


# English function words that are function words of the gloss's languages too
# (Portuguese "a", "no"; German "in", "an", "was", "will", "am", "also"; French "on",
# "or"; Dutch "is", "we"): they say nothing of a sentence's language.
_SHARED_FUNCTION_WORDS = word_set("a no me as so in an or on we is was will am also")
_ENGLISH_ONLY = ENGLISH_FUNCTION_WORDS - _SHARED_FUNCTION_WORDS


def in_another_language(words: list[str]) -> bool:
    """Whether a sentence's words (casefolded, accents stripped) are of another language
    than English: two words of the gloss's other languages (its lexicon, or the
    speaker's pronouns), or one and no function word only English has ("Ich wohne im
    Zentrum", "Perdi a minha carteira")."""
    foreign = sum(1 for w in words if w in FOREIGN_WORDS or w in _FOREIGN_FIRST_PERSON)
    if foreign >= 2:
        return True
    return foreign == 1 and not any(w in _ENGLISH_ONLY for w in words)


_WORD = re.compile(r"\w+")


def plain(text: str) -> str:
    """A word or text as the gloss spells it: casefolded, accents stripped."""
    text = text.casefold()
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def plain_words(text: str) -> list[str]:
    """A text's words as the gloss spells them."""
    return _WORD.findall(plain(text))
