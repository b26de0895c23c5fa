"""Check the batch engine against the reference Deck on many random decks.

Half the decks are dealt by the batch engine (``deal_batch``, numpy's
generator), half by the reference (``deal_deck``, Python's); every deal is
checked against R2 by ``Deck.from_layout`` and then played card by card by
both engines with the same uniformly random cards
(``pishti.engine.batch.reference_differences``): each play's outcome, and at
the end both teams' counts, the team that took the face-down cards and the
last team to capture must be equal.

    python bench/engine_equivalence.py [--decks 100000] [--seed 0] [--chunk 5000]

Prints the decks checked per player count and every difference found; exits
1 when there is one.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

import numpy as np

from pishti.engine import deal_deck
from pishti.engine.batch import DeckBatch, deal_batch, reference_differences


def check(players: int, decks: int, seed: int, chunk: int) -> list[str]:
    """Check ``decks`` decks of ``players`` players; return the differences found."""
    choose = np.random.default_rng(seed + 1)
    batch_rng = np.random.default_rng(seed)
    reference_rng = random.Random(seed)
    found: list[str] = []
    done = 0
    while done < decks:
        size = min(chunk, decks - done)
        if (done // chunk) % 2 == 0:
            batch = deal_batch(batch_rng, size, players)
        else:
            batch = DeckBatch.from_decks(
                [deal_deck(reference_rng, players, i % players) for i in range(size)]
            )
        found += [f"decks {done}+: {line}" for line in reference_differences(batch, choose)]
        done += size
    return found


def main() -> None:
    """Run the check for 4 and 2 players and print the result."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decks", type=int, default=100_000, help="decks per player count")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--chunk", type=int, default=5000, help="decks per batch")
    args = parser.parse_args()
    failed = False
    for players in (4, 2):
        start = time.perf_counter()
        found = check(players, args.decks, args.seed, args.chunk)
        took = time.perf_counter() - start
        print(f"{players} players: {args.decks:,} decks, {len(found)} differences ({took:.0f} s)")
        for line in found:
            print("  " + line)
        failed = failed or bool(found)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
