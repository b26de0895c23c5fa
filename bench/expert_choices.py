"""Which expert decides better against an opponent style, measured one move at a time.

The arena's duplicate matches judge a bot by whole decks, whose margins vary
by some 15 points a deck: two experts that differ on one move in ten need
thousands of decks to be told apart.  This judges the moves themselves.

A standard bot plays seat 0 (and its partner, seat 2, with four players)
against an opponent style at the other seats.  At each turn of seat 0 every
expert variant is asked for its card; each variant follows the match from its
first move, its opponent model learning as at the table.  Where a variant's
card plays differently from the standard policy's (the expert's default),
both cards are played from the *true* position (the real hands) and the
rest of the deck is played out by the real bots: seat 0 and its partner by
the standard policy, the other seats by the opponent's own bot.  Only the
cards no seat has seen (the stock, and the face-down cards before the first
capture) are shuffled, :data:`ROLLOUTS` times, the same orders for both
cards: every order of them is as likely as the real one, and the mean over
orders takes most of the noise of the later deals out.  The difference of the
two mean deck margins
(R5.2, seat 0's team less the other) is that move's *gain*; a move that plays
like the default gains 0.  A variant's gain per deck is the sum of its gains
over a game's decks divided by the decks: how many points per deck its
decisions at seat 0 would add to the standard bot's, each judged with the
rest of the deck played by the standard policy.  With four players the
partner's seat would add about as much again.

Every variant is judged on the same positions, so the differences between
variants are paired, and a position where two variants play alike adds no
noise to their difference.  Intervals are 95%, over games.  CPU times are
per move of seat 0 (forced and obvious moves included, as the arena counts).

    python bench/expert_choices.py OPPONENT [--players 2] [--games 10] [--decks 3]
        [--seed 0] [--variants base,margin0.5] [--results FILE] [--rollouts 8]

``--results FILE`` keeps one line per game (JSON) and, run again, plays only
the games missing.  Opponents are any name ``make_bot`` takes; the held-out
``sampler`` and ``miser`` are for final measurements, never for choosing.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import time
from pathlib import Path
from typing import Any

from pishti.arena.duplicate import derived_seed
from pishti.arena.stats import percentile
from pishti.bots import ExpertBot, StandardBot, make_bot
from pishti.bots.expert import ENDGAME_LEAVES, _leaves
from pishti.bots.knowledge import Knowledge
from pishti.bots.opponents import PRIOR_OPPORTUNIST, same_play
from pishti.bots.standard import standard_card
from pishti.engine import Card, Match, seat_view
from pishti.engine.deck import CARDS_PER_HAND, Deck
from pishti.engine.match import NoMoreDecks

VARIANTS: dict[str, dict[str, Any]] = {
    "base": {},
    "margin0.5": {"margin": 0.5},
    "margin0": {"margin": 0.0},
    "s256": {"samples": 256},
    "s256m0.5": {"samples": 256, "margin": 0.5},
    "fixed": {"adaptive": False},
    "noend": {"endgame_leaves": 0},
    "opportunist": {"prior": PRIOR_OPPORTUNIST},
    "soft0.5": {"temperature": 0.5},
    "soft1": {"temperature": 1.0},
    "soft0.5opp": {"temperature": 0.5, "prior": PRIOR_OPPORTUNIST},
}
"""Expert variants by name: keyword arguments of :class:`ExpertBot`."""
ROLLOUTS = 8
"""Rollouts per card judged, each with its own order of the unseen cards (:func:`rollout`)."""


def rollout(match: Match, first: Card, opponent: str, seed: int) -> int:
    """Play ``first`` for the seat to play of ``match``'s deck, then the rest of the
    deck with the standard policy at team 0 and ``opponent`` bots (seeded from
    ``seed``) at team 1, on a copy; return team 0's deck points less team 1's.

    The cards no seat has seen (the stock and, before the deck's first capture,
    the face-down cards) are shuffled among their places by ``seed``: their
    order is unknown to every seat, so every order is as likely as the real one
    (R2.2, R7.7), and averaging over orders lowers the noise of a gain.
    """
    deck = match.deck
    players = match.players
    rng = random.Random(seed)
    per_deal = CARDS_PER_HAND * players
    unseen_down = deck.face_down_team is None
    pool = [c for k in range(deck.deal_index, len(deck.deals)) for h in deck.deals[k] for c in h]
    if unseen_down:
        pool += deck.middle[:3]
    rng.shuffle(pool)
    middle = (*pool[-3:], deck.middle[3]) if unseen_down else deck.middle
    deals = list(deck.deals[: deck.deal_index])
    for k in range(deck.deal_index, len(deck.deals)):
        at = (k - deck.deal_index) * per_deal
        deals.append(
            tuple(
                tuple(pool[at + s * CARDS_PER_HAND : at + (s + 1) * CARDS_PER_HAND])
                for s in range(players)
            )
        )
    layout = tuple(deals)

    def source(number: int, dealer: int) -> Deck:
        if number:
            raise NoMoreDecks
        return Deck._laid(players, dealer, middle, layout)

    copy = Match(players, 10_000, first_dealer=deck.dealer, deck_source=source)
    for play in match.history:
        copy.play(play.card)
    copy.play(first)
    bots = [
        StandardBot() if s % 2 == 0 else make_bot(opponent, derived_seed(seed, s))
        for s in range(players)
    ]
    while copy.deck.counts is None:
        seat = copy.to_play
        assert seat is not None
        copy.play(bots[seat].choose(seat_view(copy, seat)))
    counts = copy.deck.counts
    return counts[0].points - counts[1].points


def play_game(
    opponent: str,
    players: int,
    decks: int,
    seed: int,
    game: int,
    variants: list[str],
    repeats: int = ROLLOUTS,
) -> dict[str, Any]:
    """Play ``decks`` decks of game ``game`` and judge every variant at every turn
    of seat 0; return the game's record (one line of the results file)."""
    match = Match(players, 10_000, seed=derived_seed(seed, game, "deal"))
    bots = [
        StandardBot() if s % 2 == 0 else make_bot(opponent, derived_seed(seed, game, s))
        for s in range(players)
    ]
    experts = {v: ExpertBot(derived_seed(seed, game, v), **VARIANTS[v]) for v in variants}
    moves: list[dict[str, list[float]]] = []
    while match.deck_number < decks:
        seat = match.to_play
        assert seat is not None
        view = seat_view(match, seat)
        if seat == 0:
            default = standard_card(view.hand, 0, Knowledge.from_view(view))
            values: dict[Card, float] = {}
            at = len(moves)
            endgame = float(not view.stock_size and _leaves(view.hand_sizes) <= ENDGAME_LEAVES)

            row: dict[str, list[float]] = {}
            for name, bot in experts.items():
                start = time.process_time()
                card = bot.choose(view)
                cpu_ms = 1000 * (time.process_time() - start)
                gain = 0.0
                if not same_play(card, default):
                    for c in (card, default):
                        if c not in values:
                            runs = [
                                rollout(match, c, opponent, derived_seed(seed, game, at, r))
                                for r in range(repeats)
                            ]
                            values[c] = sum(runs) / repeats
                    gain = values[card] - values[default]
                used, search_gain, se = bot.last_search
                row[name] = [gain, cpu_ms, used, search_gain, se, endgame]
            moves.append(row)
            match.play(default)
        else:
            match.play(bots[seat].choose(view))
    return {"game": game, "decks": decks, "rollouts": repeats, "moves": moves}


def interval(values: list[float]) -> str:
    """``mean [low, high]``, a 95% normal interval of the mean."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return f"{mean:+.3f}"
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values))
    return f"{mean:+.3f} [{mean - half:+.3f}, {mean + half:+.3f}]"


def summarize(games: list[dict[str, Any]], variants: list[str]) -> list[str]:
    """Per variant: moves, searches, moves gained or lost (played unlike the default
    and judged not 0), gain per deck (and less the first variant's, paired), gain
    per such move, CPU ms median / p95."""
    lines = []
    first = variants[0]
    for name in variants:
        per_game = []
        endgames = []
        less_first = []
        unlike = []
        cpu = []
        searched = 0
        for g in games:
            total = sum(m[name][0] for m in g["moves"])
            per_game.append(total / g["decks"])
            endgames.append(sum(m[name][0] for m in g["moves"] if m[name][5]) / g["decks"])
            less_first.append((total - sum(m[first][0] for m in g["moves"])) / g["decks"])
            unlike += [m[name][0] for m in g["moves"] if m[name][0] != 0.0]
            cpu += [m[name][1] for m in g["moves"]]
            searched += sum(1 for m in g["moves"] if m[name][2] > 0)
        moves = sum(len(g["moves"]) for g in games)
        p95 = percentile(cpu, 0.95)
        lines.append(
            f"{name:>10}: {counted(len(games), 'game')}, {counted(moves, 'move')}, "
            f"{searched} searched, "
            f"{len(unlike)} gained or lost; gain per deck {interval(per_game)}"
            + (f", less {first} {interval(less_first)}" if name != first else "")
            + f" (endgames {interval(endgames)})"
            + f"; per such move {statistics.fmean(unlike) if unlike else 0.0:+.3f}"
            f"; CPU ms {statistics.median(cpu):.1f} / {p95:.1f}"
        )
    return lines


def counted(count: int, noun: str) -> str:
    """``"1 game"``, ``"2 games"``: ``count`` and ``noun``, plural unless 1."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("opponent")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--decks", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--variants", default="base,margin0.5,margin0,s256")
    parser.add_argument("--results", type=Path)
    parser.add_argument("--rollouts", type=int, default=ROLLOUTS)
    args = parser.parse_args()
    for name in ("games", "decks", "rollouts"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1, not {getattr(args, name)}")
    variants = args.variants.split(",")
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        parser.error(f"unknown variants {unknown}; known: {', '.join(VARIANTS)}")
    twice = sorted({v for v in variants if variants.count(v) > 1})
    if twice:
        parser.error(f"variants named more than once: {', '.join(twice)}")
    games: list[dict[str, Any]] = []
    if args.results is not None and args.results.exists():
        games = [json.loads(line) for line in args.results.read_text().splitlines() if line]
        games = [g for g in games if all(v in g["moves"][0] for v in variants)]
    done = {g["game"] for g in games}
    for game in range(args.games):
        if game in done:
            continue
        record = play_game(
            args.opponent, args.players, args.decks, args.seed, game, variants, args.rollouts
        )
        games.append(record)
        if args.results is not None:
            with args.results.open("a") as out:
                out.write(json.dumps(record) + "\n")
        print(f"game {game} done", flush=True)
    decks = counted(args.decks, "deck")
    print(f"{args.opponent}, {args.players} players, {decks} a game, seed {args.seed}")
    print("\n".join(summarize(games, variants)))


if __name__ == "__main__":
    main()
