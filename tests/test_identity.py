"""Unambiguous identity: one key per (tenant, principal), names normalized once.

The aggregate id and the read model's principal key both come from
``principal_identity``: the old ``tenant/principal`` text while neither name holds a
``/`` (stores written before keep their principals), a structured key otherwise.
"""

from __future__ import annotations

import unicodedata
from uuid import uuid5

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memory_es.domain.inputs import clean_name, clean_text
from memory_es.domain.values import (
    PRINCIPAL_NAMESPACE,
    legacy_principal_aggregate_id,
    principal_aggregate_id,
    principal_identity,
    split_principal_identity,
)
from memory_es.errors import InvalidInput

# Names as the edges admit them: no control character, no surrounding space, NFC.
names = (
    st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs")) | st.just("/"), min_size=1)
    .map(lambda s: unicodedata.normalize("NFC", s).strip())
    .filter(bool)
)


def test_a_name_without_a_slash_keeps_the_id_stores_were_written_with() -> None:
    assert principal_aggregate_id(principal="alice") == uuid5(PRINCIPAL_NAMESPACE, "default/alice")
    assert principal_aggregate_id(principal="bob", tenant="acme") == uuid5(
        PRINCIPAL_NAMESPACE, "acme/bob"
    )
    assert legacy_principal_aggregate_id(principal="alice") is None


def test_a_slash_in_either_name_never_makes_two_pairs_one_principal() -> None:
    one, other = ("acme", "x/y"), ("acme/x", "y")
    assert principal_identity(tenant=one[0], principal=one[1]) != principal_identity(
        tenant=other[0], principal=other[1]
    )
    assert principal_aggregate_id(tenant=one[0], principal=one[1]) != principal_aggregate_id(
        tenant=other[0], principal=other[1]
    )
    # The old encoding made them one: the repository reads it only for the pair it created.
    assert legacy_principal_aggregate_id(
        tenant=one[0], principal=one[1]
    ) == legacy_principal_aggregate_id(tenant=other[0], principal=other[1])


@given(names, names, names, names)
def test_the_key_is_injective_and_reads_back(t1: str, p1: str, t2: str, p2: str) -> None:
    assert split_principal_identity(principal_identity(tenant=t1, principal=p1)) == (t1, p1)
    if (t1, p1) != (t2, p2):
        assert principal_identity(tenant=t1, principal=p1) != principal_identity(
            tenant=t2, principal=p2
        )


def test_names_are_keyed_stripped_and_nfc_on_every_path() -> None:
    decomposed = unicodedata.normalize("NFD", "zoë")
    assert principal_identity(tenant=" acme ", principal=f" {decomposed}\n") == "acme/zoë"
    assert clean_name(f"  {decomposed} ") == "zoë"
    with pytest.raises(InvalidInput, match="non-empty"):
        clean_name("   ")
    with pytest.raises(InvalidInput, match="U\\+0009"):
        clean_name("ana\tb")


@pytest.mark.parametrize(
    "text", ["a\x00b", "a\x07b", "a\x1bb", "a\x7fb", "a\x85b", "a\x9fb", "a\ud800b"]
)
def test_nul_and_control_characters_are_refused_in_text(text: str) -> None:
    with pytest.raises(InvalidInput, match="NUL and control characters"):
        clean_text(text)


def test_tab_newline_and_carriage_return_stay_and_text_is_nfc() -> None:
    assert clean_text("a\tb\nc\r\n") == "a\tb\nc\r\n"
    assert clean_text("Zu\u0308rich") == "Z\u00fcrich"
