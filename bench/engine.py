"""Benchmark the rules engine: random full decks per second, 4 and 2 players.

Every deck is dealt with ``deal_deck`` and played to its end with ``Deck.play``,
the public core that the match, the records, the bots and the server all use.
Each seat plays the last card of its hand: the deal is a uniform shuffle, so the
order of a hand is random and its last card is a uniformly random legal choice.

The batch engine (``pishti.engine.batch``, numpy) is measured the same way:
``deal_batch`` deals ``--batch`` decks at once and ``DeckBatch.play`` plays the
last card of each hand to play, 48 times.

    python bench/engine.py [--seconds 2] [--runs 5] [--seed 1] [--batch 10000]

Prints the decks per second of each run, the median of the runs, and as its
last line the medians as JSON: ``{"decks_per_s_4p": ..., "decks_per_s_2p": ...,
"batch_decks_per_s_4p": ..., "batch_decks_per_s_2p": ...}`` (the batch figures
only when numpy is installed).

Time is the process's CPU time (``time.process_time``): the figures are decks
per second of one core, and time the process spends waiting for a core on a
busy machine is not counted.  Other load still slows it (shared caches), so
take the median of several runs.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time

from pishti.engine import Deck, deal_deck


def play_decks(players: int, seconds: float, seed: int) -> float:
    """Deal and play random decks for about ``seconds`` of CPU time; return decks per second."""
    rng = random.Random(seed)
    clock = time.process_time
    decks = 0
    dealer = 0
    start = clock()
    deadline = start + seconds
    while True:
        for _ in range(100):
            deck: Deck = deal_deck(rng, players, dealer)
            play = deck.play
            for _ in range(48):
                play(deck.hands[deck.to_play][-1])
            assert deck.counts is not None
            dealer = (dealer + 1) % players
        decks += 100
        now = clock()
        if now >= deadline:
            return decks / (now - start)


def play_batches(players: int, seconds: float, seed: int, size: int) -> float:
    """Deal and play batches of ``size`` random decks for about ``seconds`` of CPU time;
    return decks per second."""
    import numpy as np

    from pishti.engine.batch import deal_batch

    rng = np.random.default_rng(seed)
    clock = time.process_time
    per_deal = 4 * players
    decks = 0
    start = clock()
    deadline = start + seconds
    while True:
        batch = deal_batch(rng, size, players)
        rows = np.arange(size)
        for k in range(48):
            # the last card of each hand, as play_decks does
            batch.play(batch.hands[rows, batch.to_play, 3 - (k % per_deal) // players])
        assert batch.points is not None
        decks += size
        now = clock()
        if now >= deadline:
            return decks / (now - start)


def main() -> None:
    """Run the benchmark and print its figures (the last line is JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU seconds of one run")
    parser.add_argument("--runs", type=int, default=5, help="runs per player count")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first run")
    parser.add_argument("--batch", type=int, default=10_000, help="decks per batch")
    args = parser.parse_args()
    figures: dict[str, int] = {}
    for players in (4, 2):
        rates = [play_decks(players, args.seconds, args.seed + run) for run in range(args.runs)]
        median = statistics.median(rates)
        figures[f"decks_per_s_{players}p"] = round(median)
        shown = ", ".join(f"{r:,.0f}" for r in rates)
        print(f"{players} players: {median:,.0f} decks/s median of {args.runs} ({shown})")
    try:
        import numpy  # noqa: F401
    except ImportError:
        print("batch engine: numpy is not installed (pip install pishti[research])")
    else:
        for players in (4, 2):
            rates = [
                play_batches(players, args.seconds, args.seed + run, args.batch)
                for run in range(args.runs)
            ]
            median = statistics.median(rates)
            figures[f"batch_decks_per_s_{players}p"] = round(median)
            shown = ", ".join(f"{r:,.0f}" for r in rates)
            print(
                f"{players} players, batches of {args.batch:,}: {median:,.0f} decks/s"
                f" median of {args.runs} ({shown})"
            )
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
