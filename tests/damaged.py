"""Damage a kept file the ways a crash, a disk or another program does (tests of caches)."""

from __future__ import annotations

import random
from pathlib import Path

DAMAGES = ("truncate", "flip", "empty", "garbage")


def damage_file(path: Path, damage: str, *, flip_from: int = 0, flip: int = 0xFF) -> bytes:
    """Write ``path`` back damaged (seeded by the damage's name) and return what was written.

    ``truncate`` cuts it short, ``flip`` xors one byte at ``flip_from`` or later with ``flip``,
    ``empty`` leaves nothing, and ``garbage`` replaces it with random bytes of its length.
    """
    rng = random.Random(damage)
    raw = bytearray(path.read_bytes())
    if damage == "truncate":
        raw = raw[: rng.randrange(1, len(raw))]
    elif damage == "flip":
        raw[rng.randrange(flip_from, len(raw))] ^= flip
    elif damage == "empty":
        raw = bytearray()
    else:
        raw = bytearray(rng.randbytes(len(raw)))
    path.write_bytes(bytes(raw))
    return bytes(raw)
