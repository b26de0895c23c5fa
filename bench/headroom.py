"""How much the expert could gain against ``grabber`` if it knew more (a diagnostic).

The expert of the pool table (docs/bots.md) was no better than the standard bot
against ``grabber``.  This script asks where the missing points are: it plays
that expert (the level) against
``grabber`` on the pool table's deals, paired against the
standard bot on the same deals (as ``pishti arena ... --compare standard``),
with one of these told to it that no seat may know (R7.7), so none of them is
a bot one could play:

- ``cards``: every hidden card, the other hands, the stock in order and the
  face-down cards: each sampled deck is the real one;
- ``hands``: the other hands as they are now; the stock and the face-down
  cards are placed at random among the rest, as the expert places them;
- ``policy``: nothing about the cards, but ``grabber``'s exact rule
  (:func:`~pishti.bots.baselines.grabber_take`, a random card that is not a
  jack otherwise): 16 placements proposed for each one kept, as the expert
  proposes them, are weighed by how likely each opponent's plays of this deal
  (those made holding two cards or more) are under that rule (:data:`MISS`,
  all but 0, for a hand from which it would have captured and did not)
  instead of by the opponent model's mistake-tolerant mixture.  This is about
  the best that inference from the plays can do against ``grabber``.

Every way runs the level's search otherwise, with the ``opportunist`` prior
(:data:`~pishti.bots.opponents.PRIOR_OPPORTUNIST`, the policy of the population
closest to ``grabber``; ``--prior level`` for the level's own), and its model
learns from the plays as at a table.  Usage::

    python bench/headroom.py WAY [--players 2|4] [--matches 100] [--target 51|101|151]
                                 [--seed 1401] [--prior opportunist|level] [--samples 128]

It prints, in points per deck with 95% intervals, the told expert's points
less ``grabber``'s, the standard bot's less ``grabber``'s on the same deals,
and the first less the second, paired over the duplicate matches.  The
expert plays 2 games a duplicate match (100 matches: 10 to 20 minutes on one
core; ``--samples`` gives the search fewer sampled decks a move than the level's
128, for a quick look).
"""

from __future__ import annotations

import argparse
import random
import sys
import types
from collections.abc import Iterator

import pishti.arena.duplicate as duplicate
from pishti.arena import run_duplicate
from pishti.arena.stats import Estimate, paired_difference, summarize
from pishti.bots.baselines import grabber_take, grabber_throws
from pishti.bots.determinize import Check, Determinizer, Placement, systematic_resample
from pishti.bots.expert import ENDGAME_SAMPLES, SAMPLES, ExpertBot
from pishti.bots.opponents import PRIOR, PRIOR_OPPORTUNIST
from pishti.engine.deck import Deck
from pishti.engine.match import Match
from pishti.engine.view import SeatView

WAYS = ("cards", "hands", "policy")
MISS = 1e-4
"""Weight of a play ``grabber``'s rule would not make (not 0, so a deal whose every
placement breaks the rule, which cannot happen against ``grabber``, still samples)."""
PROPOSALS = 16
"""Placements proposed per sampled deck for ``policy`` (most are ruled out)."""

_deck: list[Deck] = []
_seat_view = duplicate.seat_view


def _spy(match: Match, seat: int) -> SeatView:
    """The arena's :func:`seat_view`, keeping the real deck for the oracles."""
    _deck[:] = [match.deck]
    return _seat_view(match, seat)


def true_placement(deck: Deck) -> Placement:
    """Where every card of ``deck`` really lies now: hands, face-down cards, stock
    in dealing order (as :meth:`Determinizer.build` lays it out)."""
    stock = [
        card
        for deal in deck.deals[deck.deal_index :]
        for seat in range(deck.players)
        for card in deal[seat]
    ]
    return Placement([list(h) for h in deck.hands], tuple(deck.middle[:3]), stock)


def with_true_hands(
    placement: Placement, deck: Deck, seat: int, down_known: bool, rng: random.Random
) -> Placement:
    """``placement`` with the real hands of ``deck``: the cards it had put there
    and the real hands did not hold go to the face-down cards (unless ``seat``
    has seen them) and the stock, at random."""
    hands = [list(h) for h in deck.hands]
    held = {c for s, h in enumerate(hands) if s != seat for c in h}
    pool = [c for s, h in enumerate(placement.hands) if s != seat for c in h]
    pool += placement.stock
    if not down_known:
        pool += placement.down
    rest = [c for c in pool if c not in held]
    rng.shuffle(rest)
    down = placement.down
    if not down_known:
        down, rest = tuple(rest[:3]), rest[3:]
    return Placement(hands, down, rest)


def grabber_likelihood(checks: list[Check], placement: Placement, seat: int) -> float:
    """How likely the opponents' plays of this deal are from ``placement``'s hands
    under ``grabber``'s rule (``seat``'s partner is not judged)."""
    out = 1.0
    for other, card, before, later in checks:
        if (other ^ seat) & 1 == 0:
            continue
        hand = later + placement.hands[other]
        top = before.pile[-1] if before.pile else None
        take = grabber_take(hand, top, before.pile_points, before.pile_size)
        if take is not None:
            out *= 1.0 if take == card else MISS
            continue
        throws = grabber_throws(hand)
        out *= 1.0 / len(throws) if card in throws else MISS
    return out


class HeadroomBot(ExpertBot):
    """The level with one thing it may not know (module doc); ``way`` says which."""

    way = "cards"
    prior: tuple[float, ...] = PRIOR_OPPORTUNIST
    samples = SAMPLES
    """Sampled decks per move (the level's 128); the exact endgame's at most as many."""

    def __init__(self, seed: int | None = None) -> None:
        """The level's search, with the class's ``prior`` and ``samples``."""
        cls = type(self)
        super().__init__(
            seed,
            prior=cls.prior,
            samples=cls.samples,
            endgame_samples=min(cls.samples, ENDGAME_SAMPLES),
        )

    def _placements(
        self, determinizer: Determinizer, rng: random.Random, count: int
    ) -> Iterator[Placement]:
        placed = list(super()._placements(determinizer, rng, count))  # the model learns
        view = determinizer.view
        if self.way == "cards":
            yield from (true_placement(_deck[0]) for _ in range(count))
        elif self.way == "hands":
            known = view.face_down is not None
            for p in placed:
                yield with_true_hands(p, _deck[0], view.seat, known, rng)
        else:
            yield from self._by_policy(determinizer, rng, count)

    def _by_policy(
        self, determinizer: Determinizer, rng: random.Random, count: int
    ) -> Iterator[Placement]:
        checks = determinizer.checks
        if not checks:
            # Proposed one at a time, as the search asks for them.
            yield from (determinizer.propose(rng) for _ in range(count))
            return
        proposed = [determinizer.propose(rng) for _ in range(PROPOSALS * count)]
        seat = determinizer.view.seat
        weights = [grabber_likelihood(checks, p, seat) for p in proposed]
        yield from systematic_resample(proposed, weights, count, rng)


def bot_class(way: str, prior: str, samples: int = SAMPLES) -> type[HeadroomBot]:
    """The plug-in class of ``way`` with the ``prior`` ("opportunist" or "level") and
    ``samples`` sampled decks per move."""
    return type(
        f"Headroom_{way}_{prior}",
        (HeadroomBot,),
        {
            "way": way,
            "prior": PRIOR_OPPORTUNIST if prior == "opportunist" else PRIOR,
            "samples": samples,
        },
    )


def main(argv: list[str] | None = None) -> dict[str, Estimate]:
    """Run one way (``argv`` as on the command line) and print its line.

    Returns:
        ``{"less_grabber", "standard_less_grabber", "less_standard"}``: the
        told expert's points per deck less ``grabber``'s, the standard bot's on
        the same deals, and the first less the second paired, each an
        :class:`~pishti.arena.stats.Estimate` (points per deck, 95%).
    Raises:
        SystemExit: bad arguments (a usage line, exit code 2).
    """
    parser = argparse.ArgumentParser(
        description=(
            "How much the expert could gain against grabber if it knew more: the expert, "
            "told WAY, plays grabber on the pool table's deals, paired against the "
            "standard bot on the same deals (a diagnostic, not a bot one could play)."
        ),
        epilog=(
            "WAY: cards = every hidden card is known; hands = the other hands now; "
            "policy = nothing about the cards, but grabber's exact rule weighs the "
            "placements.  Figures are points per deck with 95% intervals."
        ),
    )
    parser.add_argument("way", choices=WAYS, help="what the expert is told")
    parser.add_argument("--players", type=int, choices=(2, 4), default=2, help="2 or 4 (default 2)")
    parser.add_argument(
        "--matches",
        type=int,
        default=100,
        help="duplicate matches, 2 games each (default 100: 10 to 20 minutes)",
    )
    parser.add_argument(
        "--target", type=int, choices=(51, 101, 151), default=51, help="points (default 51)"
    )
    parser.add_argument(
        "--seed", type=int, default=1401, help="the deals (default 1401, the pool table's)"
    )
    parser.add_argument(
        "--prior",
        choices=("opportunist", "level"),
        default="opportunist",
        help="the opponent model's prior (default opportunist)",
    )
    parser.add_argument(
        "--samples",
        type=int,
        default=SAMPLES,
        help=f"sampled decks per move (default {SAMPLES}, the level's; fewer for a quick look)",
    )
    args = parser.parse_args(argv)
    if args.matches < 1:
        parser.error("--matches must be at least 1")
    if args.samples < 1:
        parser.error("--samples must be at least 1")
    # The arena builds plug-ins by "module:Class": the class is put in a module "headroom".
    name = f"Headroom_{args.way}_{args.prior}"
    plugin = types.ModuleType("headroom")
    setattr(plugin, name, bot_class(args.way, args.prior, args.samples))
    sys.modules["headroom"] = plugin
    duplicate.seat_view = _spy
    try:
        pairs = run_duplicate(
            f"headroom:{name}",
            "grabber",
            players=args.players,
            matches=args.matches,
            target=args.target,
            seed=args.seed,
            move_time=None,
            reference="standard",
        )
    finally:
        duplicate.seat_view = _seat_view
        del sys.modules["headroom"]
    mine = summarize(pairs, name, "grabber")["margin_per_deck"]
    reference = [p.reference for p in pairs if p.reference is not None]
    standard = summarize(
        [duplicate.PairResult(p.index, r) for p, r in zip(pairs, reference, strict=True)],
        "standard",
        "grabber",
    )["margin_per_deck"]
    less = paired_difference(pairs)["margin_per_deck"]
    matches = "match" if len(pairs) == 1 else "matches"
    print(
        f"{args.way} ({args.prior} prior), {args.players} players, {len(pairs)} duplicate "
        f"{matches} to {args.target}, seed {args.seed}; points per deck, 95%: "
        f"told expert less grabber {mine.text()}, standard less grabber {standard.text()}, "
        f"told expert less standard (paired) {less.text()}"
    )
    return {"less_grabber": mine, "standard_less_grabber": standard, "less_standard": less}


if __name__ == "__main__":
    main()
