"""The server's side of provably fair deals (R11): its seed for each match, and seat seeds.

A table's server seed for match ``m`` is HMAC-SHA256 keyed with the table's
secret seed (drawn by :mod:`secrets` when the table is made) of the ASCII text
``pishti/server-seed/m``: 32 bytes fixed from the table's creation on, so its
commitment can be published before any seat seed is taken (R11.1), and a
restarted server has it again without keeping it anywhere new.  It is
revealed, in the match record, only once the match is over (R7.7).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from pishti.engine.fair import SEAT_SEED_BYTES, commitment


def server_seed(table_seed: str, match: int) -> bytes:
    """The table's 32-byte server seed for match ``match`` (from 1), see the module."""
    message = f"pishti/server-seed/{match}".encode("ascii")
    return hmac.new(table_seed.encode("utf-8"), message, hashlib.sha256).digest()


def match_commitment(table_seed: str, match: int) -> str:
    """The published commitment of match ``match``: the SHA-256 of its server seed (R11.1)."""
    return commitment(server_seed(table_seed, match))


def draw_seat_seed() -> str:
    """A seat seed drawn by the server (a bot's, or a person's who sent none), in hex."""
    return secrets.token_bytes(SEAT_SEED_BYTES).hex()
