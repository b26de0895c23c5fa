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

A second table scores the same positions another way: for each rank of a
card in seat 0's hand, and for the jack, the share of the 32 placements in
which the next seat holds a card of that rank is a forecast of whether it
really does; the table gives the mean log loss of those forecasts (nats,
lower is better). Beside the four ways above it scores the opponent model
with the ``opportunist`` prior (:data:`~pishti.bots.opponents.PRIOR_OPPORTUNIST`)
and ``hard voids``: proposals only, every void trusted, and no jack for
any other seat that laid a card on a pile this deal (what a seat that never
misses a capture shows; the partner, a standard bot here, is treated the
same, though it may keep a jack for a larger pile).

Each way is given its own copy of the learnt models (weighing records a
deal's evidence in a model), so the ways do not depend on one another's order.
Both tables are printed row by row, the first as each opponent's positions
are played (about two minutes per opponent for 400 positions).

    python bench/inference.py [POSITIONS] [OPPONENT ...]
"""

from __future__ import annotations

import argparse
import copy
import math
import random

from pishti.bots import LEVELS, make_bot
from pishti.bots.baselines import POOL
from pishti.bots.determinize import Determinizer, Placement
from pishti.bots.opponents import PRIOR_OPPORTUNIST, OpponentModel
from pishti.engine import JACK, LAID, Card, Match, SeatView, seat_view

Case = tuple[SeatView, list[list[Card]], OpponentModel, OpponentModel]


def positions(count: int, opponent: str, players: int = 4) -> list[Case]:
    """``count`` positions of seat 0: its view, every true hand, and the models
    it learnt (the level's prior, then the ``opportunist`` prior)."""
    rng = random.Random(5)
    out = []
    for seed in range(count):
        match = Match(players, 151, seed=seed)
        bots = [make_bot("standard" if s % 2 == 0 else opponent, s) for s in range(players)]
        model = OpponentModel(players)
        opportunist = OpponentModel(players, PRIOR_OPPORTUNIST)
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
                Determinizer(view, model=opportunist).resample(rng, 8, 64)
            match.play(bots[seat].choose(view))
        out.append((view, [list(h) for h in match.deck.hands], model, opportunist))
    return out


def laid_on_a_pile(view: SeatView) -> list[bool]:
    """By seat: whether it laid a card on a non-empty pile in this deal."""
    per_deal = 4 * view.players
    start = len(view.history) // per_deal * per_deal
    out = [False] * view.players
    pile = 1  # the face-up card
    for i, play in enumerate(view.history):
        if play.outcome == LAID:
            if i >= start and pile:
                out[play.seat] = True
            pile += 1
        else:
            pile = 0
    return out


def placements(case: Case, way: str, rng: random.Random) -> list[Placement]:
    """32 placements of the unseen cards of ``case`` drawn ``way``."""
    view, _, model, opportunist = case
    learnt = {"model": model, "opportunist": opportunist}.get(way)
    chosen = copy.deepcopy(learnt) if learnt is not None else None
    determinizer = Determinizer(view, model=chosen)
    determinizer.use_voids = way != "uniform"
    if way == "hard voids":
        voids = determinizer.knowledge.voids
        for seat, laid in enumerate(laid_on_a_pile(view)):
            if laid and seat != view.seat:
                voids[seat] |= 1 << JACK
        determinizer.set_void_keep(0.0)
    if way in ("likelihood", "model", "opportunist"):
        return determinizer.resample(rng, 32, 128)
    return [determinizer.propose(rng) for _ in range(32)]


def share_placed_right(cases: list[Case], way: str) -> float:
    """The share of the other hands' cards that 32 samples place right, on average."""
    rng = random.Random(1)
    right = total = 0
    for case in cases:
        view, hands = case[0], case[1]
        for placement in placements(case, way, rng):
            for seat, hand in enumerate(hands):
                if seat != view.seat:
                    right += len(set(placement.hands[seat]) & set(hand))
                    total += len(hand)
    return right / total


def next_seat_log_loss(cases: list[Case], way: str) -> float:
    """Mean log loss (nats) of the forecasts that the next seat holds a card of
    each rank in seat 0's hand and of the jack (module doc); forecasts are
    kept within [0.01, 0.99]."""
    rng = random.Random(2)
    loss = 0.0
    forecasts = 0
    for case in cases:
        view, hands = case[0], case[1]
        following = (view.seat + 1) % view.players
        placed = placements(case, way, rng)
        for rank in sorted({c >> 2 for c in view.hand} | {JACK}):
            share = sum(any(c >> 2 == rank for c in p.hands[following]) for p in placed)
            forecast = min(max(share / len(placed), 0.01), 0.99)
            holds = any(c >> 2 == rank for c in hands[following])
            loss -= math.log(forecast if holds else 1.0 - forecast)
            forecasts += 1
    return loss / forecasts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("positions", type=int, nargs="?", default=100)
    parser.add_argument("opponents", nargs="*", metavar="opponent")
    args = parser.parse_args()
    if args.positions < 1:
        parser.error(f"positions must be at least 1, not {args.positions}")
    opponents = args.opponents or ["standard", "grabber", "hoarder", "sloppy"]
    known = [*LEVELS, *POOL]
    unknown = [o for o in opponents if o not in known]
    if unknown:
        parser.error(f"unknown opponents {unknown}; known: {', '.join(known)}")
    ways = ("uniform", "voids", "likelihood", "model")
    scored = ("uniform", "voids", "likelihood", "model", "opportunist", "hard voids")
    print("Share of the other hands' cards placed right")
    print(f"{'opponent':>10}  " + "  ".join(f"{w:>11}" for w in ways))
    tables = []
    for opponent in opponents:
        cases = positions(args.positions, opponent)
        tables.append(cases)
        shares = [share_placed_right(cases, way) for way in ways]
        print(f"{opponent:>10}  " + "  ".join(f"{s:>11.1%}" for s in shares), flush=True)
    print("Log loss of 'the next seat holds that rank' (nats per forecast, lower is better)")
    print(f"{'opponent':>10}  " + "  ".join(f"{w:>11}" for w in scored))
    for opponent, cases in zip(opponents, tables, strict=True):
        losses = [next_seat_log_loss(cases, way) for way in scored]
        print(f"{opponent:>10}  " + "  ".join(f"{v:>11.4f}" for v in losses), flush=True)


if __name__ == "__main__":
    main()
