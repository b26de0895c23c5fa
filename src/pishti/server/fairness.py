"""The server's side of provably fair deals (R11): its seed for each match, and seat seeds.

Every match's server seed is 32 fresh bytes from :mod:`secrets`
(:func:`draw_server_seed`), drawn before any seat seed for that match is taken:
the first match's when the table is made, each next match's when the match
before it starts.  Its commitment is published at once (the lobby, the
``match_started`` of the match before); the seed itself is kept in the table's
log (:class:`~pishti.server.changes.ServerSeed`, and the start's
``next_server_seed``), which the server never sends (R7.7), so a restarted
server deals the same cards and reveals the same seed; it leaves the server only
in the match's record, once the match is over.

Tables made before the seeds were stored derive the seed of a match their log
does not hold from the table's secret (:func:`derived_server_seed`), as they
published its commitment then.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from pishti.engine.fair import SEAT_SEED_BYTES, SERVER_SEED_BYTES


def draw_server_seed() -> str:
    """A fresh server seed (R11.1): 32 bytes from :mod:`secrets`, as 64 hex digits."""
    return secrets.token_bytes(SERVER_SEED_BYTES).hex()


def derived_server_seed(table_seed: str, match: int) -> bytes:
    """The 32-byte server seed of match ``match`` (from 1) of a table whose log holds
    none: HMAC-SHA256 keyed with the table's secret seed of the ASCII text
    ``pishti/server-seed/m`` (how tables made before the seeds were stored
    committed to theirs)."""
    message = f"pishti/server-seed/{match}".encode("ascii")
    return hmac.new(table_seed.encode("utf-8"), message, hashlib.sha256).digest()


def draw_seat_seed() -> str:
    """A seat seed drawn by the server (a bot's, or a person's who sent none), in hex."""
    return secrets.token_bytes(SEAT_SEED_BYTES).hex()
