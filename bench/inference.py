"""How well the expert's determinization places the cards a seat has not seen.

Plays standard-bot matches to a random point of their first deck, then
samples 32 placements of the unseen cards for the seat to play and counts the
share of the other hands' cards placed where they really are, three ways:
uniformly, respecting voids, and respecting voids then resampling 128
proposals by their likelihood under the standard policy (the expert's way).

    python bench/inference.py [POSITIONS]
"""

from __future__ import annotations

import random
import sys

from pishti.bots import make_bot
from pishti.bots.determinize import Determinizer, Placement
from pishti.engine import Card, Match, SeatView, seat_view


def positions(count: int) -> list[tuple[SeatView, list[list[Card]]]]:
    """``count`` positions: the view of the seat to play and every true hand."""
    rng = random.Random(5)
    out = []
    for seed in range(count):
        match = Match(4, 101, seed=seed)
        bots = [make_bot("standard", s) for s in range(4)]
        for _ in range(rng.randrange(1, 46)):
            seat = match.to_play
            assert seat is not None
            match.play(bots[seat].choose(seat_view(match, seat)))
        seat = match.to_play
        assert seat is not None
        out.append((seat_view(match, seat), [list(h) for h in match.deck.hands]))
    return out


def share_placed_right(cases: list[tuple[SeatView, list[list[Card]]]], way: str) -> float:
    """The share of the other hands' cards that 32 samples place right, on average."""
    rng = random.Random(1)
    right = total = 0
    for view, hands in cases:
        determinizer = Determinizer(view)
        determinizer.use_voids = way != "uniform"
        placed: list[Placement]
        if way == "likelihood":
            placed = determinizer.resample(rng, 32, 128)
        else:
            placed = [determinizer.propose(rng) for _ in range(32)]
        for placement in placed:
            for seat, hand in enumerate(hands):
                if seat != view.seat:
                    right += len(set(placement.hands[seat]) & set(hand))
                    total += len(hand)
    return right / total


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    cases = positions(count)
    for way in ("uniform", "voids", "likelihood"):
        print(f"{way:>10}: {share_placed_right(cases, way):.1%} of hidden hand cards placed right")


if __name__ == "__main__":
    main()
