"""Rule family: hedges, intentions and talk about the conversation ("I think ...",
"I want ...", "I tried that"): a match that forms nothing.
"""

from __future__ import annotations

import re

from memory_es.formation.patterns.rule import Found, Rule, rule


# Hedges, intentions, past tense and talk about the conversation form nothing.
@rule(
    "none.hedge",
    r"^I (?:think|guess|feel like|wonder|want|wanna|need|needed|used to|might|may|"
    # past tense is an episode (fact.episode below) unless it reports a passing thought
    r"was thinking|was wondering|was hoping|was going to|was gonna|was trying|was about to|"
    r"was just|was told|was asking|was not sure|was curious|was looking for|had to|"
    r"had no idea|had a question|did not|have been thinking|have been wondering|"
    r"have been meaning|have been trying|have been asking|have been looking for|"
    r"am going to try|am going to check|am going to need|am going to ask|"
    r"could|should|must|can(?! not stand| not bear)|will|would like(?! (?:it if )?you\b)|"
    # "I would rather you skip the pleasantries": how to be served (the request family)
    r"would love|would rather(?! (?:if |that )?you\b)|would be|would not|"
    r"hope|wish|mean|meant|said|told|asked|forgot|forget|believe|suppose|bet|doubt|"
    r"imagine|assume|agree|disagree|see|understand|know|(?:get|got) it(?=\W*$)|"
    r"appreciate|apologize|apologise|promise|try|"
    r"tried (?:that|this|it|everything|again|your|the (?:fix|code|command|script|solution))|"
    r"am trying to (?:figure|understand|fix|debug|get|make|decide|work out)|"
    r"am looking at|am looking for (?:help|advice|a way|ideas|tips|suggestions|feedback)|"
    r"am thinking|am wondering|am curious|am asking|"
    r"am not sure|am unsure|am here|am back|am sorry|am glad|"
    r"am done|am ready|am good|am fine|am okay|am ok|am confused|am stuck|am tired|"
    r"am working on (?:this|that|it|a bug|an? (?:script|function|query|issue|problem|fix)|"
    r"the (?:code|bug|script|function|query|issue|problem|fix|report|deck|slides))\b|"
    r"am about to|am still trying|am having|am getting|am hoping|"
    r"am considering|am debating|am testing|"
    r"am sure|am afraid|am just|do not know|do not think|"
    r"do not understand|do not remember|did it|did that|did not|have to|have got to|"
    r"have no idea|"
    r"have a question|have a few|have some questions|love to|like to think|"
    r"keep|kept|just wanted|also wanted|wanted)\b",
)
def _hedge(m: re.Match[str]) -> list[Found]:
    return []


RULES: tuple[Rule, ...] = (_hedge,)
