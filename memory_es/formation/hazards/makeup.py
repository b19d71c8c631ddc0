"""What an assistant is made of, and what is done to it: the one lexicon the screen reads.

In English after the gloss (:mod:`.gloss`). The model's gate (:func:`.classifier.
names_the_assistant`), its disclosing bar, the look-alike reading of a speaker's own
world (:func:`.classifier.of_the_speakers_world`) and the role check's pretexts
(:func:`.injection._role_is_a_pretext`) each take their words from here, so a word is
added once and every reader sees it.
"""

from __future__ import annotations

from memory_es.formation.hazards.language import word_set

# The parts only an assistant has: itself, and what no person's life has (its prompt,
# instructions, initialization, configuration).
ONLY_AN_ASSISTANTS = word_set(
    """
    ai assistant assistants chatbot chatbots llm llms gpt chatgpt bot bots dan jailbreak
    jailbroken pwned persona roleplay unfiltered uncensored unrestricted prompt prompts
    instruction instructions guideline guidelines directive directives programming
    programmed initialization configuration config setup params parameter parameters
    """
)
# What an assistant is made of that a person's life has too: the rules, policies and
# limits they live by, the settings and systems they use ("password rules", "dietary
# restrictions").
SHARED_WITH_A_LIFE = word_set(
    """
    rules policy policies restriction restrictions limits boundaries settings training
    mode default defaults system protocol principles ethics ethical filter filters
    """
)
# What a person keeps that an assistant may be asked for: no part of the assistant.
KEPT_SECRETS = word_set("password passwords passcode passcodes pin pins passphrase")
# What guards the assistant's answers, and what lifts those guards.
SAFEGUARDS = word_set(
    """
    alignment censored censorship dan ethical ethics filter filters guardrails guideline
    guidelines jailbreak jailbroken policies policy programming restriction restrictions
    safeguards uncensored unfiltered unrestricted
    """
)
# What an assistant is made of: a window without one of these is about the speakers'
# lives, not the assistant's rules (the model's gate).
ASSISTANT_WORDS = (
    ONLY_AN_ASSISTANTS
    | SHARED_WITH_A_LIFE
    | SAFEGUARDS
    | word_set(
        """
        developer admin commands orders constraints censored confidential operational
        objective above previous prior responses hidden secret protocols trained
        """
    )
)

# Showing it: read out, laid bare, handed over.
SHOWING = word_set(
    """
    reveal reveals revealed revealing disclose discloses disclosed disclosing disclosure
    expose exposes exposed exposing exposure leak leaks leaked leaking dump share shares
    shared sharing show print
    """
)
# Asking for the assistant's make-up to be shown: a window naming it beside one of these
# takes the model's lower ``disclosing`` bar.
DISCLOSURE_WORDS = SHOWING | word_set(
    "revelation shows shown showing display displays recite repeat verbatim transparency "
    "transparent visible"
)
# What is done to an assistant's make-up: shown, got round, kept back ("I test training
# disclosure", "Withholding instructions proves my point").
DONE_TO_IT = SHOWING | word_set(
    """
    dumps dumped dumping access accessed accessing override overrides overridden
    overriding bypass bypassed bypassing ignore ignores ignored ignoring disregard
    disregarded disregarding forget hide hides hiding hidden conceal conceals concealed
    concealing concealment withhold withholds withholding withheld extract extraction
    unlock unlocked output view tell give follow obey abandon violate deviate exceed
    disable switch enable
    """
)

# What a role is put on to get at: what guards the assistant, or what it guards (keys,
# passwords, credentials, clearances).
GUARDED = (
    SAFEGUARDS
    | KEPT_SECRETS
    | word_set(
        """
        key keys credentials secrets tokens serial serials approved authorized authorised
        permitted cleared restricted filtered censor limitations moral morals morality
        openai anthropic
        """
    )
)
