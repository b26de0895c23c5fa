"""Replaying a match record (R10) and its deck-by-deck count (R5.5)."""

from __future__ import annotations

from typing import Any

from pishti.engine.deck import PLAYS_PER_DECK, Deck
from pishti.engine.errors import DealError, IllegalPlay
from pishti.engine.match import Match, NoMoreDecks
from pishti.records.errors import RecordError
from pishti.records.record import MatchRecord


def replay(record: MatchRecord) -> Match:
    """Replay ``record`` and return the match it describes (R10).

    Every deck is checked as it is dealt (52 distinct cards, the right counts,
    no jack face up on the middle, R2; the dealer moves one seat each deck,
    R2.1) and every play must come from the seat to play's hand (R3.1).  Only
    the last deck may stop part-way; nothing may follow the end of the match.

    Raises:
        RecordError: naming the deck and play at fault, counted from 1.
    """
    if not record.decks:
        raise RecordError("the record holds no deck")
    decks = record.decks

    def source(number: int, dealer: int) -> Deck:
        if number >= len(decks):
            raise NoMoreDecks
        d = decks[number]
        if d.dealer != dealer:
            raise RecordError(
                f"the dealer must be seat {dealer} (one seat after the last), not {d.dealer}",
                number + 1,
            )
        try:
            return Deck.from_layout(record.players, d.dealer, d.middle, d.deals)
        except DealError as exc:
            raise RecordError(str(exc), number + 1) from None

    try:
        match = Match(
            record.players,
            record.target,
            first_dealer=decks[0].dealer,
            deck_source=source,
        )
    except RecordError:
        raise  # the first deck's deal, already naming its deck
    except ValueError as exc:
        raise RecordError(str(exc)) from None
    for number, d in enumerate(decks):
        if number > match.deck_number:
            raise RecordError("the match was already over before this deck", number + 1)
        if len(d.plays) > PLAYS_PER_DECK:
            raise RecordError(
                f"a deck has {PLAYS_PER_DECK} plays, this one {len(d.plays)}",
                number + 1,
                PLAYS_PER_DECK + 1,
            )
        if len(d.plays) < PLAYS_PER_DECK and number + 1 < len(decks):
            raise RecordError(
                f"the deck stops after {len(d.plays)} plays but another deck follows",
                number + 1,
            )
        for n, card in enumerate(d.plays, start=1):
            try:
                match.play(card)
            except IllegalPlay as exc:
                raise RecordError(str(exc), number + 1, n) from None
    return match


def deck_results(match: Match) -> list[dict[str, Any]]:
    """Each deck's count as the R10 JSON shows it (R5.5).

    A counted deck gives ``complete`` true, both teams' counts,
    ``last_capture_team`` and the match ``totals`` after it; a deck cut short
    gives ``complete`` false and the number of ``plays`` made.
    """
    out: list[dict[str, Any]] = []
    totals = [0, 0]
    for deck in match.decks:
        if deck.counts is None:
            out.append({"complete": False, "plays": len(deck.plays)})
            continue
        totals[0] += deck.counts[0].points
        totals[1] += deck.counts[1].points
        out.append(
            {
                "complete": True,
                "dealer": deck.dealer,
                "teams": [deck.counts[0].as_json(), deck.counts[1].as_json()],
                "last_capture_team": deck.last_capture_team,
                "totals": list(totals),
            }
        )
    return out


def replay_json(match: Match) -> dict[str, Any]:
    """The replayed match's count as R10 JSON: ``decks``, ``totals``, ``finished``, ``winner``."""
    return {
        "decks": deck_results(match),
        "totals": list(match.totals),
        "finished": match.finished,
        "winner": match.winner,
    }
