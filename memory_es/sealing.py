"""Sealing at the storage edge: user-derived text in events, encrypted by the mapper.

The domain never sees a cipher: its events carry text, and this mapper (eventsourcing's
``Mapper``, subclassed) moves the text fields of the topics in ``SEALED`` into one
AES-GCM box before the transcoder writes the stored state, and back after it reads
it. Everything else — ids, positions, kinds, timestamps, counts, source ids — stays in
the clear, so the log replays, rebuilds and audits without any key.

The box, under the stored state's key ``_sealed_``:

    {"k": key id, "o": owner, "b": base64(nonce || ciphertext)}

with the event's originator id, version and topic as associated data, so a box cannot
be moved to another event. Each kind of text has its own key (``SealedTopic.key_id``):
a turn's text its turn's, a belief's statement its belief's, established facts their
event's, a session snapshot's rendering its session's, an aggregate snapshot's state its
aggregate's. Forgetting destroys exactly the keys of what is forgotten
(memory_es/forgetting.py); a box whose key is gone opens to the topic's placeholder,
never an error, so a replay or a rebuild after forgetting runs and shows nothing of it.

A stored state without a box (a store written before sealing, or with sealing off)
reads as it always did.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from eventsourcing.persistence import Mapper, StoredEvent
from eventsourcing.utils import get_topic

from memory_es.domain.values import principal_identity
from memory_es.errors import MemoryEsError
from memory_es.keys import NONCE_BYTES, KeyRing

SEALED_KEY = "_sealed_"
# What a forgotten text reads as: in a turn, a statement, a rendering.
FORGOTTEN = "[forgotten]"

_SESSION = "memory_es.domain.session:Session."
_PRINCIPAL = "memory_es.domain.principal:PrincipalMemory."
PRINCIPAL_SNAPSHOT = _PRINCIPAL + "Snapshot"
LIBRARY_SNAPSHOT = "eventsourcing.domain:Snapshot"  # a session's aggregate snapshot


@dataclass(frozen=True)
class SealedTopic:
    """Which fields of a topic's events are sealed, under which key, and what each reads
    as once its key is destroyed (``placeholder(state)``: the fields' values)."""

    fields: tuple[str, ...]
    key_id: Callable[[dict[str, Any], str, int], str]  # (clear state, originator, version)
    placeholder: Callable[[dict[str, Any], str], dict[str, Any]]  # (clear state, originator)


def turn_key(turn_id: str) -> str:
    return f"turn:{turn_id}"


def belief_key(belief_id: str) -> str:
    return f"belief:{belief_id}"


def facts_key(session_id: str, version: int) -> str:
    return f"facts:{session_id}:{version}"


def session_snapshot_key(session_id: str) -> str:
    return f"snapshot:{session_id}"


def state_key(aggregate_id: str) -> str:
    return f"state:{aggregate_id}"


SEALED: dict[str, SealedTopic] = {
    _SESSION + "TurnRecorded": SealedTopic(
        ("text",),
        lambda state, _id, _v: turn_key(state["turn_id"]),
        lambda _state, _id: {"text": FORGOTTEN},
    ),
    _SESSION + "FactsEstablished": SealedTopic(
        ("facts",),
        lambda _state, originator, version: facts_key(originator, version),
        lambda _state, _id: {"facts": []},
    ),
    _SESSION + "SessionSnapshotTaken": SealedTopic(
        ("lines", "prefix"),
        lambda _state, originator, _v: session_snapshot_key(originator),
        # The snapshot's ids go with its lines: a shredded rendering shows nothing.
        lambda _state, _id: {"lines": [], "prefix": "", "belief_ids": []},
    ),
    _PRINCIPAL + "BeliefFormed": SealedTopic(
        ("statement", "normalized", "context", "subjects", "subject_key"),
        lambda state, _id, _v: belief_key(state["belief_id"]),
        # The normalized statement stays distinct per belief: forgotten beliefs are never
        # duplicates of one another, nor of anything said later.
        lambda state, _id: {
            "statement": FORGOTTEN,
            "normalized": f"{FORGOTTEN} {state['belief_id']}",
            "context": "",
            "subjects": [],
            "subject_key": "",
        },
    ),
}
# Aggregate snapshots hold the state, whose text (statements, renderings) is sealed whole;
# forgetting deletes the stale ones (memory_es/forgetting.py), so no placeholder is read.
_STATE = SealedTopic(
    ("state",),
    lambda _state, originator, _v: state_key(originator),
    lambda _state, _id: {"state": None},
)
SEALED[PRINCIPAL_SNAPSHOT] = _STATE
SEALED[LIBRARY_SNAPSHOT] = _STATE


# The topics whose sealed text the read model's projector reads (a statement, its
# subjects and context, which it indexes); it reads no turn, fact or rendering text.
PROJECTED_TEXT = frozenset({_PRINCIPAL + "BeliefFormed"})


class SealingError(MemoryEsError):
    """An event with text to seal whose owner is unknown (saved outside Application.save)."""


def _aad(originator: str, version: int, topic: str) -> bytes:
    return f"{originator}|{version}|{topic}".encode()


class SealingMapper(Mapper[Any]):
    """eventsourcing's mapper with the text of ``SEALED`` topics sealed (module doc)."""

    def __init__(self, *args: Any, keys: KeyRing, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.keys = keys
        self._owners: dict[str, str] = {}  # originator id (text) -> owner, from saves

    def prepare(self, events: Iterable[Any], aggregates: dict[Any, Any]) -> None:
        """Before a save: learn each saved aggregate's owner and create the keys its
        events will be sealed under; their rows are written in the save's transaction
        (with the events) when the key table shares the store, else now, in one insert."""
        wanted: list[tuple[str, str]] = []
        for aggregate_id, aggregate in aggregates.items():
            tenant, principal = (
                getattr(aggregate, "tenant", None),
                getattr(aggregate, "principal", None),
            )
            if isinstance(tenant, str) and isinstance(principal, str):
                self._owners[str(aggregate_id)] = principal_identity(
                    tenant=tenant, principal=principal
                )
        for event in events:
            sealed = SEALED.get(get_topic(type(event)))
            if sealed is None:
                continue
            originator = str(event.originator_id)
            owner = self._owners.get(originator)
            if owner is None:
                raise SealingError(f"no owner known for aggregate {originator}")
            wanted.append((sealed.key_id(vars(event), originator, event.originator_version), owner))
        self.keys.ensure(wanted, with_events=True)

    def note_owner(self, originator: str, owner: str) -> None:
        """Name an aggregate's owner for events sealed outside a save (``log compact``)."""
        self._owners[originator] = owner

    def to_stored_event(self, domain_event: Any) -> StoredEvent:
        topic = get_topic(type(domain_event))
        sealed = SEALED.get(topic)
        if sealed is None:
            return super().to_stored_event(domain_event)
        state = dict(vars(domain_event))
        originator = str(state.pop("originator_id"))
        version: int = state.pop("originator_version")
        owner = self._owner_of(originator, state)
        key_id = sealed.key_id(state, originator, version)
        self.keys.ensure([(key_id, owner)])
        key = self.keys.key(key_id, owner)
        if key is None:  # destroyed between ensure and here: nothing may be written clear
            raise SealingError(f"the key {key_id} was destroyed while sealing")
        plain = self.transcoder.encode({name: state.pop(name) for name in sealed.fields})
        nonce = self.keys.nonce()
        box = nonce + AESGCM(key).encrypt(nonce, plain, _aad(originator, version, topic))
        state[SEALED_KEY] = {"k": key_id, "o": owner, "b": base64.b64encode(box).decode()}
        class_version = getattr(type(domain_event), "class_version", 1)
        if class_version > 1:
            state["class_version"] = class_version
        return StoredEvent(
            originator_id=domain_event.originator_id,
            originator_version=version,
            topic=topic,
            state=self.transcoder.encode(state),
        )

    def _owner_of(self, originator: str, state: dict[str, Any]) -> str:
        owner = self._owners.get(originator)
        if owner is None:
            inner = state.get("state")  # an aggregate snapshot names its owner
            if isinstance(inner, dict) and "tenant" in inner and "principal" in inner:
                owner = principal_identity(tenant=inner["tenant"], principal=inner["principal"])
                self._owners[originator] = owner
        if owner is None:
            raise SealingError(f"no owner known for aggregate {originator}")
        return owner

    def to_domain_event(self, stored_event: StoredEvent) -> Any:
        event = super().to_domain_event(stored_event)
        fields = vars(event)
        if SEALED_KEY in fields:
            self.unseal(
                stored_event.topic,
                str(stored_event.originator_id),
                stored_event.originator_version,
                fields,
            )
        return event

    def unseal_projected(
        self, topic: str, originator: str, version: int, fields: dict[str, Any]
    ) -> None:
        """``unseal`` for the projector's page reader: only the text it reads is opened
        (PROJECTED_TEXT); any other box is dropped unopened (a rebuild decrypts no turn)."""
        if topic in PROJECTED_TEXT:
            self.unseal(topic, originator, version, fields)
        else:
            del fields[SEALED_KEY]

    def unseal(self, topic: str, originator: str, version: int, fields: dict[str, Any]) -> None:
        """Replace the box in a decoded state by its fields (the placeholder's when the
        key is destroyed). The projector's page reader calls this too."""
        box = fields.pop(SEALED_KEY)
        owner = box["o"]
        self._owners.setdefault(originator, owner)
        key = self.keys.key(box["k"], owner)
        sealed = SEALED.get(topic)
        opened: dict[str, Any] | None = None
        if key is not None:
            raw = base64.b64decode(box["b"])
            try:
                plain = AESGCM(key).decrypt(
                    raw[:NONCE_BYTES], raw[NONCE_BYTES:], _aad(originator, version, topic)
                )
            except InvalidTag:
                raise SealingError(
                    f"the sealed text of {originator} v{version} does not open under its key:"
                    " the stored event was altered or moved"
                ) from None
            opened = self.transcoder.decode(plain)
        if opened is None:
            opened = sealed.placeholder(fields, originator) if sealed else {}
        fields.update(opened)
