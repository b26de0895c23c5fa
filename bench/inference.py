"""How well the expert's determinization places the cards a seat has not seen.

Plays matches of a ``standard`` bot at seat 0 (and seat 2 with four players)
against an opponent style at the other seats to a random point of their
second or third deck, then samples 32 placements of the unseen cards for
seat 0 and counts the share of the other hands' cards placed where they
really are, four ways: uniformly; respecting voids; respecting voids then
resampling 128 proposals by their likelihood under the standard policy (the
earlier expert's way); and the same under an opponent model
(:mod:`pishti.bots.opponents`) that watched the match so far from seat 0,
as the expert does (the robust expert's way).

    python bench/inference.py [POSITIONS] [OPPONENT ...]
"""

from __future__ import annotations

import random
import sys

from pishti.bots import make_bot
from pishti.bots.determinize import Determinizer, Placement
from pishti.bots.opponents import OpponentModel
from pishti.engine import Card, Match, SeatView, seat_view

Case = tuple[SeatView, list[list[Card]], OpponentModel]


def positions(count: int, opponent: str, players: int = 4) -> list[Case]:
    """``count`` positions of seat 0: its view, every true hand, and the model it learnt."""
    rng = random.Random(5)
    out = []
    for seed in range(count):
        match = Match(players, 151, seed=seed)
        bots = [make_bot("standard" if s % 2 == 0 else opponent, s) for s in range(players)]
        model = OpponentModel(players)
        stop_deck = 1 + seed % 2
        stop = rng.randrange(1, 46)
        while True:
            seat = match.to_play
            assert seat is not None
            view = seat_view(match, seat)
            if seat == 0:
                if match.deck_number >= stop_deck and len(view.history) >= stop:
                    break
                # What the expert does at each of its turns: weigh and learn.
                Determinizer(view, model=model).resample(rng, 8, 64)
            match.play(bots[seat].choose(view))
        out.append((view, [list(h) for h in match.deck.hands], model))
    return out


def share_placed_right(cases: list[Case], way: str) -> float:
    """The share of the other hands' cards that 32 samples place right, on average."""
    rng = random.Random(1)
    right = total = 0
    for view, hands, model in cases:
        determinizer = Determinizer(view, model=model if way == "model" else None)
        determinizer.use_voids = way != "uniform"
        placed: list[Placement]
        if way in ("likelihood", "model"):
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
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    opponents = sys.argv[2:] or ["standard", "grabber", "hoarder", "sloppy"]
    ways = ("uniform", "voids", "likelihood", "model")
    print(f"{'opponent':>10}  " + "  ".join(f"{w:>10}" for w in ways))
    for opponent in opponents:
        cases = positions(count, opponent)
        shares = [share_placed_right(cases, way) for way in ways]
        print(f"{opponent:>10}  " + "  ".join(f"{s:>10.1%}" for s in shares), flush=True)


if __name__ == "__main__":
    main()
