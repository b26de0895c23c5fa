"""Checking that a record's decks were dealt from its published seeds (R11.9).

:func:`verify_record` recomputes the commitment, the first dealer and every
deck of a record that carries its seeds (``"fair"``) and says, check by check,
whether the record agrees, or exactly where it differs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pishti.engine.cards import Card, card_text
from pishti.engine.fair import commitment, fair_deck, fair_first_dealer
from pishti.records.errors import RecordError
from pishti.records.record import DeckRecord, MatchRecord


class NotVerifiable(RecordError):
    """A record that holds no seeds (dealt before R11, or by another program):
    it replays, but its deals cannot be checked."""


@dataclass(frozen=True, slots=True)
class Check:
    """One check of a record against its seeds.

    Attributes:
        what: what was checked: ``"commitment"``, ``"first dealer"``, ``"deck 3"``.
        ok: whether the record agrees with the seeds.
        detail: one line: what agreed, or exactly where the record differs.
    """

    what: str
    ok: bool
    detail: str

    def line(self) -> str:
        """The check as one line: ``deck 2: ok`` or ``deck 2: DIFFERS: ...``."""
        return f"{self.what}: {'ok' if self.ok else 'DIFFERS'}: {self.detail}"


def _cards(cards: Sequence[Card]) -> str:
    return " ".join(card_text(c) for c in cards)


def _deck_difference(
    got: DeckRecord, want_middle: Sequence[Card], want_deals: Sequence[Sequence[Sequence[Card]]]
) -> str | None:
    """Where a record's deck differs from the deck the seeds deal, or None: the middle,
    the number of deals, or the first deal that differs with every seat of it whose
    cards differ; cards dealt to another seat than the seeds give them are named."""
    if tuple(got.middle) != tuple(want_middle):
        return f"middle: the record has {_cards(got.middle)}, the seeds deal {_cards(want_middle)}"
    if len(got.deals) != len(want_deals):
        return f"the record has {len(got.deals)} deals, the seeds {len(want_deals)}"
    for k, (got_deal, want_deal) in enumerate(zip(got.deals, want_deals, strict=True)):
        seats = [
            (seat, tuple(have), tuple(want))
            for seat, (have, want) in enumerate(zip(got_deal, want_deal, strict=False))
            if tuple(have) != tuple(want)
        ]
        if not seats:
            continue
        owner = {card: seat for seat, hand in enumerate(want_deal) for card in hand}
        parts = []
        for seat, have, want in seats:
            part = f"seat {seat}: the record has {_cards(have)}, the seeds deal {_cards(want)}"
            moved = [
                f"{card_text(c)} to seat {owner[c]}"
                for c in have
                if c not in want and owner.get(c, seat) != seat
            ]
            if moved:
                part += f" (the seeds deal {', '.join(moved)})"
            parts.append(part)
        return f"deal {k + 1}, " + "; ".join(parts)
    return None


def verify_record(record: MatchRecord) -> list[Check]:
    """Check ``record`` against its seeds (R11.9): the commitment, the first dealer,
    then each deck in order (its dealer, middle and deals).

    This checks the deals only, not the plays: it needs no replay, so a record
    whose deals were changed is checked deck by deck even when its plays no
    longer replay (:func:`pishti.records.replay` says where those fail).

    Returns:
        One :class:`Check` per item; the record is verified when every one is ok.
    Raises:
        NotVerifiable: the record holds no seeds.
    """
    seeds = record.fair
    if seeds is None:
        raise NotVerifiable(
            'the record holds no seeds (no "fair" object): its deals cannot be verified'
        )
    checks: list[Check] = []
    digest = commitment(seeds.server_seed)
    published = record.commitment if record.commitment is not None else digest
    if digest == published.lower():
        checks.append(Check("commitment", True, f"{published} is the SHA-256 of the server seed"))
    else:
        checks.append(
            Check(
                "commitment",
                False,
                f"the SHA-256 of the server seed is {digest}, not the commitment {published}",
            )
        )
    first = fair_first_dealer(seeds, record.players)
    have = record.decks[0].dealer if record.decks else None
    if have == first:
        checks.append(Check("first dealer", True, f"seat {first}"))
    else:
        checks.append(
            Check("first dealer", False, f"the record has seat {have}, the seeds draw seat {first}")
        )
    for n, deck in enumerate(record.decks, start=1):
        dealer = (first + n - 1) % record.players
        what = f"deck {n}"
        if deck.dealer != dealer:
            checks.append(
                Check(what, False, f"dealt by seat {deck.dealer}, the seeds say seat {dealer}")
            )
            continue
        want = fair_deck(seeds, n, record.players, dealer)
        difference = _deck_difference(deck, want.middle, want.deals)
        if difference is None:
            checks.append(
                Check(what, True, f"middle {_cards(deck.middle)} and {len(deck.deals)} deals")
            )
        else:
            checks.append(Check(what, False, difference))
    return checks
