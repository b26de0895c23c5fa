"""The expert's fast playout: the rules, the counting and the policies fused in one loop.

:func:`fast_playout` gives exactly what :func:`~pishti.bots.playout.mixed_playout`
gives (the same value, and the same draws from its generator) for a sampled
deck and its public :class:`~pishti.bots.knowledge.Knowledge`, after one
first card is played, without copying the :class:`~pishti.engine.deck.Deck`
or the knowledge and without a Python call per play for the rules, the
bookkeeping and the standard policy: the state lives in local variables of
one function.  It is the expert's hot loop (most of a move's time).

It restates three things that have one reference each, and is checked
against them play for play (``tests/bots/test_fastplay.py`` on thousands of
sampled decks, ``bench/expert_speed.py --check`` on 100,000 and more):

- the rules of :meth:`Deck.play` (R3.2-R3.6 captures and the face-down cards,
  R4.1, R4.2, R4.5 pishtis, R2.3 the next deal, R5.1-R5.3 the last pile and
  the count), keeping only what the count needs (card points and card numbers
  taken per team, not the cards);
- :meth:`Knowledge.observe` (the public counting and the voids);
- the opponents' policies of :func:`~pishti.bots.playout.mixed_playout`;
- :func:`~pishti.bots.standard.card_values` with :data:`TACTICS` and the
  tie rule of :func:`~pishti.bots.standard.standard_card` (the same
  arithmetic in the same order, so the same floats and the same choices).

Any change to one of those must be made here too; the tests fail otherwise.

**Compiled.**  ``./dev compile`` compiles a copy of this module with mypyc
(``pishti.bots._fastplay_native``, never committed) and the module then uses
the compiled :func:`fast_playout` and :func:`fast_solve` (:data:`NATIVE` is
True): the same code, about twice as fast.  The copy records the SHA-256 of
this file and is used only while this file is unchanged, so an edit here
is never shadowed by an old build; without a compiler, or without the build,
this pure-Python module is what runs.
"""

from __future__ import annotations

import hashlib
import importlib
import random
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

from pishti.bots.knowledge import Knowledge
from pishti.bots.opponents import (
    GREEDY,
    OPPORTUNIST,
    POLICIES,
    STANDARD,
    check_policies,
    greedy_policy,
    opportunist_capture,
)
from pishti.bots.playout import most_cards_chance
from pishti.bots.standard import HOLD_CHANCE, TACTICS
from pishti.engine.cards import CARD_POINTS, Card
from pishti.engine.deck import Deck

_CARD_WEIGHT = TACTICS.card_weight
_CARD_WEIGHT_DECIDED = TACTICS.card_weight_decided
_JACK_KEEP = TACTICS.jack_keep
_JACK_KEEP_PER_CARD = TACTICS.jack_keep_per_card
_LAST_TAKE = TACTICS.last_take
_RANK_KEEP = TACTICS.rank_keep
_VALUE_KEEP = TACTICS.value_keep
_VOID_FACTOR = TACTICS.void_factor
_JACK_USE = TACTICS.jack_use_points
_SHARE = {4: TACTICS.partner_share, 2: 2 * TACTICS.partner_share}


def fast_playout(
    deck: Deck,
    knowledge: Knowledge,
    face_down: tuple[Card, ...] | None,
    first: Card,
    team: int,
    policies: Sequence[int],
    rng: random.Random,
    stop: int = 48,
    trace: list[Card] | None = None,
) -> float:
    """Play ``first`` for the seat to play, then the rest of ``deck`` as
    :func:`~pishti.bots.playout.mixed_playout` does; ``deck`` and
    ``knowledge`` are left as they were.

    Args:
        deck: a deck not over; ``first`` must be in the hand of its seat to play.
        knowledge: the public knowledge of ``deck``'s position.
        face_down: the face-down cards the knowledge holds for the team that
            took them (a sampled deck's ``middle[:3]``), or None.
        team: the team whose margin is returned (0 or 1).
        policies: per seat, an index of :data:`~pishti.bots.opponents.POLICIES`.
        rng: draws the cards of seats playing ``random`` (as ``mixed_playout``).
        stop: stop once this many cards of the deck have been played and
            evaluate the position as :func:`~pishti.bots.playout.evaluate`.
        trace: when given, every card played is appended to it, ``first``
            included (for the checks against the reference).
    Returns:
        ``team``'s deck points less the other team's (R5.2), or the expected
        margin when stopped early: the very value ``mixed_playout`` returns.
    Raises:
        ValueError: ``first`` is not in the hand of the seat to play.
    """
    points_of = CARD_POINTS
    hold_chance = HOLD_CHANCE
    players = deck.players
    per_deal = 4 * players
    share = _SHARE[players]
    hands = [hand[:] for hand in deck.hands]
    deals = deck.deals
    deal_index = deck.deal_index
    n_deals = len(deals)
    pile = deck.pile[:]
    pile_all = 0  # card points of the whole pile, face-down cards included
    for c in pile:
        pile_all += points_of[c]
    played = len(deck.plays)
    seat = deck.to_play
    taken_points = [0, 0]
    for t in (0, 1):
        for c in deck.taken[t]:
            taken_points[t] += points_of[c]
    taken = [len(deck.taken[0]), len(deck.taken[1])]
    pishtis = deck.pishtis[:]
    jack_pishtis = deck.jack_pishtis[:]
    last_capture = deck.last_capture_team
    face_down_team = deck.face_down_team
    # The public knowledge (Knowledge.observe's fields).
    hidden = knowledge.pile_hidden
    pile_points = knowledge.pile_points
    unseen = knowledge.unseen[:]
    unseen_count = knowledge.unseen_count
    unseen_points = knowledge.unseen_points
    sizes = knowledge.hand_sizes[:]
    stock_size = knowledge.stock_size
    plays_left = knowledge.plays_left
    voids = knowledge.voids[:]

    card = first
    while True:
        hand = hands[seat]
        # --- the rules: Deck.play (R3), and the counting: Knowledge.observe ---
        try:
            hand.remove(card)
        except ValueError:
            raise ValueError(f"seat {seat} does not hold card {card}") from None
        played += 1
        if trace is not None:
            trace.append(card)
        rank = card >> 2
        points = points_of[card]
        unseen[rank] -= 1
        unseen_count -= 1
        unseen_points -= points
        sizes[seat] -= 1
        plays_left -= 1
        if pile and (rank == 10 or pile[-1] >> 2 == rank):  # R3.3 a jack, R3.2 the same rank
            t = seat & 1
            # R4.1, R4.2: one card of the same rank; R4.5: never with the 48th card.
            if len(pile) == 1 and pile[0] >> 2 == rank and played != 48:
                if rank == 10:
                    jack_pishtis[t] += 1
                else:
                    pishtis[t] += 1
            taken[t] += len(pile) + 1
            taken_points[t] += pile_all + points
            pile = []
            pile_all = 0
            if face_down_team is None:  # R3.6
                face_down_team = t
            last_capture = t
            hidden = 0
            pile_points = 0
        else:  # R3.4, and R3.3 a jack on an empty table
            if pile:
                voids[seat] |= 1 << (pile[-1] >> 2)
            pile.append(card)
            pile_all += points
            pile_points += points
        seat = seat + 1 if seat + 1 < players else 0
        if not hand and not played % per_deal:
            if deal_index < n_deals:  # R2.3
                hands = [list(h) for h in deals[deal_index]]
                deal_index += 1
                sizes = [4] * players
                stock_size -= per_deal
                voids = [0] * players
            else:  # R5.1: the pile to the last team to capture; R5.2, R5.3: the count
                assert last_capture is not None
                taken[last_capture] += len(pile)
                taken_points[last_capture] += pile_all
                mine = (
                    taken_points[team]
                    + 3 * (taken[team] >= 27)
                    + 10 * pishtis[team]
                    + 20 * jack_pishtis[team]
                )
                other = 1 - team
                theirs = (
                    taken_points[other]
                    + 3 * (taken[other] >= 27)
                    + 10 * pishtis[other]
                    + 20 * jack_pishtis[other]
                )
                return mine - theirs
        if played >= stop:  # playout.evaluate
            other = 1 - team
            value = 10.0 * (pishtis[team] - pishtis[other])
            value += 20.0 * (jack_pishtis[team] - jack_pishtis[other])
            value += taken_points[team] - taken_points[other]
            rest = 52 - taken[team] - taken[other]
            value += 3.0 * (
                most_cards_chance(taken[team], rest) - most_cards_chance(taken[other], rest)
            )
            return value
        # --- the seat's policy (mixed_playout) ---
        hand = hands[seat]
        many = len(hand)
        if many == 1:
            card = hand[0]
            continue
        policy = policies[seat]
        if policy == GREEDY:
            card = greedy_policy(hand, pile[-1] if pile else None)
            continue
        if policy == OPPORTUNIST and pile:  # opportunist_capture, else at random
            top_rank = pile[-1] >> 2
            card = -1
            for c in hand:
                if c >> 2 == top_rank:
                    card = c
                    break
            if card < 0:
                for c in hand:
                    if c >> 2 == 10:
                        card = c
                        break
            if card >= 0:
                continue
        if policy != STANDARD:
            card = hand[rng.randrange(many)]
            continue
        # standard_card(hand, seat, knowledge): card_values with TACTICS, in
        # the same order of arithmetic, and ties to the lower card.
        me = seat & 1
        in_hand = [0] * 13
        seen = [0] * 13
        pool = unseen_count
        pool_points = unseen_points
        for c in hand:
            in_hand[c >> 2] += 1
            seen[c >> 2] += 1
            pool -= 1
            pool_points -= points_of[c]
        if face_down is not None and face_down_team == me:
            for c in face_down:
                seen[c >> 2] += 1
                pool -= 1
                pool_points -= points_of[c]
        size = len(pile)
        top_rank = pile[-1] >> 2 if pile else -1
        pile_value = pile_points + (hidden * pool_points / pool if pool else 0.0)
        last_card = plays_left == 1
        weight = _CARD_WEIGHT if max(taken) < 27 else _CARD_WEIGHT_DECIDED
        size_weight = weight * (size + 1)
        following = seat + 1 if seat + 1 < players else 0
        held = sizes[following]
        void = voids[following]
        if held == 0 and stock_size:
            held = 4  # the deal ends with this card: new hands come from the stock
            void = 0
        chances = hold_chance[held][pool]
        jack_chance = chances[unseen[10] - seen[10]]
        jack_keep = _JACK_KEEP + _JACK_KEEP_PER_CARD * (many - 2)
        last_take = 0.0 if stock_size else _LAST_TAKE * (plays_left - 1) / plays_left
        best = -1
        best_value = 0.0
        for c in hand:
            rank = c >> 2
            points = points_of[c]
            others = unseen[rank] - seen[rank]
            if rank == 10:
                keep = jack_keep
            else:
                keep = _RANK_KEEP * others / in_hand[rank] + _VALUE_KEEP * points
            if size and (rank == 10 or rank == top_rank):
                value = pile_value + points + size_weight - keep + last_take
                if size == 1 and rank == top_rank and not last_card:
                    value += 20 if rank == 10 else 10
            elif last_card:
                gain = pile_value + points + size_weight
                value = gain if last_capture == me else -gain
            else:
                match = chances[others]
                if void >> rank & 1:
                    match *= _VOID_FACTOR
                worth = pile_value + points + size_weight
                if rank == 10 or (not size and not points):
                    take = match
                else:
                    use = worth / _JACK_USE
                    take = 1.0 - (1.0 - match) * (1.0 - jack_chance * (use if use < 1.0 else 1.0))
                value = -take * worth - keep + (1.0 - take) * share * worth
                if not size:
                    value -= match * (20 if rank == 10 else 10)
            if best < 0 or value > best_value or (value == best_value and c < best):
                best, best_value = c, value
        card = best


def playout_differences(seed: int, count: int, players: int) -> list[str]:
    """Play ``count`` playouts both ways, :func:`fast_playout` and the reference
    (:meth:`Deck.play`, :meth:`Knowledge.observe`, :func:`mixed_playout`), and
    describe every difference (an empty list when they agree).

    The positions are drawn from ``seed``: matches of random bots stopped at a
    random play of a random deck, a deck sampled for the seat to play
    (:class:`~pishti.bots.determinize.Determinizer`), a random first card, a
    random policy per seat and, one time in four, a random ``stop``.  A
    playout agrees when it returns the same value and leaves its generator in
    the same state.

    Args:
        seed: seeds the positions; count: how many playouts; players: 4 or 2.
    Returns:
        One line per playout that differs.
    """
    from pishti.bots.base import RandomBot
    from pishti.bots.determinize import Determinizer
    from pishti.bots.playout import clone_deck, mixed_playout
    from pishti.engine.match import Match
    from pishti.engine.view import seat_view

    rng = random.Random(seed)
    out: list[str] = []
    done = 0
    while done < count:
        match = Match(players, 151, seed=rng.getrandbits(32))
        bot = RandomBot(rng.getrandbits(32))
        for _ in range(rng.randrange(3)):  # a later deck, now and then
            for _ in range(48):
                seat = match.to_play
                assert seat is not None
                match.play(bot.choose(seat_view(match, seat)))
        for _ in range(rng.randrange(47)):
            seat = match.to_play
            assert seat is not None
            match.play(bot.choose(seat_view(match, seat)))
        seat = match.to_play
        assert seat is not None
        view = seat_view(match, seat)
        knowledge = Knowledge.from_view(view)
        for _ in range(4):
            deck = Determinizer(view, knowledge).sample(rng)
            first = rng.choice(view.hand)
            policies = [rng.randrange(len(POLICIES)) for _ in range(players)]
            stop = 48 if rng.random() < 0.75 else rng.randrange(len(view.history) + 1, 49)
            team = rng.randrange(2)
            sample_seed = rng.getrandbits(32)
            down = deck.middle[:3]
            child = clone_deck(deck)
            child_knowledge = knowledge.copy()
            child_knowledge.face_down = down
            child_knowledge.observe(seat, first, child.play(first))
            ref_rng = random.Random(sample_seed)
            want = mixed_playout(child, child_knowledge, team, policies, ref_rng, stop)
            fast_rng = random.Random(sample_seed)
            trace: list[Card] = []
            got = fast_playout(deck, knowledge, down, first, team, policies, fast_rng, stop, trace)
            same_plays = deck.plays + trace == child.plays
            if got != want or not same_plays or fast_rng.getstate() != ref_rng.getstate():
                out.append(
                    f"deck {deck.middle} {deck.deals} after {view.history} first {first} "
                    f"team {team} policies {policies} stop {stop}: {got} against {want}"
                )
            done += 1
    return out


def fast_solve(deck: Deck, first: Card, team: int, policies: Sequence[int] | None = None) -> float:
    """Play ``first`` for the seat to play, then return the exact value of the
    rest of ``deck`` for ``team`` when its seats play their best and the other
    seats theirs, or the policies given: what
    :func:`~pishti.bots.playout.solve` returns for a copy of ``deck`` after
    ``first`` with the same ``policies`` (``deck`` is left as it was).

    The same alpha-beta search over the cards that play differently
    (:func:`~pishti.bots.playout.distinct_cards`), on one state that every
    move changes and takes back, instead of a copy of the :class:`Deck` per
    move.  The rules are those of :meth:`Deck.play` in a deck's last deal:
    captures (R3.2, R3.3), pishtis (R4.1, R4.2, never with the 48th card,
    R4.5), the last pile to the last team to capture (R5.1) and the count
    (R5.2, R5.3).

    A seat playing ``random`` (or ``opportunist`` with no capture) is a mean
    over every card of its hand, each searched in full, in the hand's order
    as ``solve`` takes them, so the floats are the same.

    Args:
        policies: per seat, an index of :data:`~pishti.bots.opponents.POLICIES`
            for the other team's seats (``team``'s entries are not used), or
            None: every seat at its best.
    Returns:
        The value in points (a whole number without ``policies``).
    Raises:
        ValueError: cards are still to be dealt (solve the last deal only),
            ``first`` is not in the hand of the seat to play, or ``policies``
            is not one index of ``POLICIES`` per seat.
    """
    if deck.counts is not None or deck.deal_index != len(deck.deals):
        raise ValueError("fast_solve plays the deck's last deal only")
    check_policies(policies, deck.players)
    points_of = CARD_POINTS
    players = deck.players
    other = 1 - team
    hands = [hand[:] for hand in deck.hands]
    pile = deck.pile[:]
    pile_all = 0
    for c in pile:
        pile_all += points_of[c]
    # What is already decided: card points and pishtis, team less other.
    score = 0
    for c in deck.taken[team]:
        score += points_of[c]
    for c in deck.taken[other]:
        score -= points_of[c]
    score += 10 * (deck.pishtis[team] - deck.pishtis[other])
    score += 20 * (deck.jack_pishtis[team] - deck.jack_pishtis[other])
    taken = [len(deck.taken[0]), len(deck.taken[1])]
    last = deck.last_capture_team
    seat = deck.to_play
    if first not in hands[seat]:
        raise ValueError(f"seat {seat} does not hold card {first}")

    def search(seat: int, played: int, alpha: float, beta: float) -> float:
        nonlocal pile, pile_all, score, last
        if played == 48:  # R5.1: the pile to the last team to capture; R5.2, R5.3
            assert last is not None
            end = score + pile_all if last == team else score - pile_all
            mine = taken[team] + (len(pile) if last == team else 0)
            theirs = taken[other] + (len(pile) if last == other else 0)
            return end + 3 * (mine >= 27) - 3 * (theirs >= 27)
        hand = hands[seat]
        following = seat + 1 if seat + 1 < players else 0
        maximize = seat & 1 == team
        policy = STANDARD if maximize or policies is None else policies[seat]
        if policy != STANDARD:  # the other team's seat by its policy (solve)
            top = pile[-1] if pile else None
            forced: Card | None = None
            if policy == GREEDY:
                forced = greedy_policy(hand, top)
            elif policy == OPPORTUNIST:
                forced = opportunist_capture(hand, top)
            if forced is not None:
                return move(seat, forced, played, following, alpha, beta)
            total = 0.0
            for card in hand[:]:  # every card alike, each searched in full
                total += move(seat, card, played, following, -1e9, 1e9)
            return total / len(hand)
        best = -1_000_000.0 if maximize else 1_000_000.0
        keys = 0  # the (rank, card points) already tried, as bits
        for card in sorted(hand):
            key = 1 << ((card >> 2) * 4 + points_of[card])
            if keys & key:
                continue
            keys |= key
            value = move(seat, card, played, following, alpha, beta)
            if maximize:
                if value > best:
                    best = value
                    if best > alpha:
                        alpha = best
                        if alpha >= beta:
                            break
            elif value < best:
                best = value
                if best < beta:
                    beta = best
                    if alpha >= beta:
                        break
        return best

    def move(
        seat: int, card: Card, played: int, following: int, alpha: float, beta: float
    ) -> float:
        nonlocal pile, pile_all, score, last
        hand = hands[seat]
        at = hand.index(card)
        del hand[at]
        played += 1
        rank = card >> 2
        points = points_of[card]
        if pile and (rank == 10 or pile[-1] >> 2 == rank):  # R3.3, R3.2: a capture
            t = seat & 1
            bonus = 0
            if len(pile) == 1 and pile[0] >> 2 == rank and played != 48:  # R4.1, R4.2, R4.5
                bonus = 20 if rank == 10 else 10
            gain = pile_all + points + bonus
            saved = (pile, pile_all, score, last)
            taken[t] += len(pile) + 1
            score += gain if t == team else -gain
            pile = []
            pile_all = 0
            last = t
            value = search(following, played, alpha, beta)
            pile, pile_all, score, last = saved
            taken[t] -= len(pile) + 1
        else:  # R3.4: laid on the pile
            pile.append(card)
            pile_all += points
            value = search(following, played, alpha, beta)
            pile.pop()
            pile_all -= points
        hand.insert(at, card)
        return value

    following = seat + 1 if seat + 1 < players else 0
    return move(seat, first, len(deck.plays), following, -1e9, 1e9)


PURE = (fast_playout, fast_solve)
"""The pure-Python :func:`fast_playout` and :func:`fast_solve`, also while the
compiled ones are in use (for benchmarks)."""
NATIVE = False
"""True when the compiled copy of this module is in use (module doc)."""


def native_module(digest: str) -> ModuleType | None:
    """The compiled copy of this module when it was built from the source whose
    SHA-256 is ``digest`` (hex), else None (not built, or built from another source)."""
    try:
        native = importlib.import_module("pishti.bots._fastplay_native")
    except ImportError:
        return None
    return native if getattr(native, "SOURCE_SHA256", None) == digest else None


if __name__ == "pishti.bots.fastplay":  # not in the compiled copy itself
    try:
        _native = native_module(hashlib.sha256(Path(__file__).read_bytes()).hexdigest())
    except OSError:  # the source cannot be read: keep the pure module
        _native = None
    if _native is not None:
        globals().update(
            fast_playout=_native.fast_playout, fast_solve=_native.fast_solve, NATIVE=True
        )
