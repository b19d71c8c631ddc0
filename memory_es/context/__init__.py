"""Context: the session snapshot and its watermark, in-turn recall, the recall delta,
correction lines, the context pack with its prefix digest, and episode search.
"""

from memory_es.context.corrections import Correction, render_correction
from memory_es.context.episodes import EpisodeHit, EpisodeSearch, search_episodes
from memory_es.context.pack import ContextPack, Message, PackItem, build_context_pack
from memory_es.context.snapshot import (
    DURABLE_TYPES,
    SnapshotTrace,
    take_session_snapshot,
)
from memory_es.domain.session import FrozenSnapshot

__all__ = [
    "DURABLE_TYPES",
    "ContextPack",
    "Correction",
    "EpisodeHit",
    "EpisodeSearch",
    "FrozenSnapshot",
    "Message",
    "PackItem",
    "SnapshotTrace",
    "build_context_pack",
    "render_correction",
    "search_episodes",
    "take_session_snapshot",
]
