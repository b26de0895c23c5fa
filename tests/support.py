"""Helpers shared by the tests: hand-made decks written as card text (R1.2).

``deck_from_plays`` turns "these cards are played in this order" into the deal
that makes it happen: play ``n`` (from 1) of a deck comes from the seat
``(dealer + n) % players`` (R2.4, R1.3), in deal ``(n - 1) // (4 * players)``
(R2.3, R8.1).  So a test writes the story of a deck and gets its layout.

The scenarios below are written out in full and their counts worked out by
hand in the comments; the tests assert those hand-made figures.
"""

from __future__ import annotations

from pishti.engine import ALL_CARDS, Deck, card_text, parse_cards

Card = int


def cards(text: str) -> list[Card]:
    """``cards("AS 10d jh")`` -> the cards, parsed as R1.2 says."""
    return parse_cards(text.split())


def deals_from_plays(players: int, dealer: int, plays: list[Card]) -> list[list[list[Card]]]:
    """The deals that make a deck's cards come out in the order ``plays`` (48 cards)."""
    first = (dealer + 1) % players
    per_deal = 4 * players
    deals = []
    for k in range(0, len(plays), per_deal):
        hands: list[list[Card]] = [[] for _ in range(players)]
        for i, card in enumerate(plays[k : k + per_deal]):
            hands[(first + i) % players].append(card)
        deals.append(hands)
    return deals


def deck_from_plays(players: int, dealer: int, middle: str, plays: str, fill: bool = False) -> Deck:
    """A checked deck (``Deck.from_layout``) whose cards are played in the order ``plays``.

    With ``fill`` the plays may stop early: the cards left over are appended in
    their natural order (only the first plays of such a deck are meant to be played).
    """
    mid = cards(middle)
    order = cards(plays)
    if fill:
        used = set(mid) | set(order)
        order += [c for c in ALL_CARDS if c not in used]
    return Deck.from_layout(players, dealer, mid, deals_from_plays(players, dealer, order))


def play_all(deck: Deck, plays: str) -> list[int]:
    """Play the given cards in order; return their outcomes (LAID, CAPTURE, ...)."""
    return [deck.play(card) for card in cards(plays)]


# -- Scenario A: four players, dealer 3, so seat 0 plays first and play n is
# seat (n - 1) % 4; odd plays are team 0, even plays team 1.
MIDDLE_A = "5C KD 9S 3H"
DEAL1_A = (
    "4C 4D"  # 1 s0 lays 4C; 2 s1 4D takes 6 cards, the face-down ones too (R3.6), no pishti (R4.4)
    " 7C 7D"  # 3 s2 lays 7C on the empty table; 4 s3 7D: pishti, team 1 (R4.1)
    " JC JD"  # 5 s0 JC on the empty table starts a pile (R3.3); 6 s1 JD: jack pishti (R4.2)
    " 8C JH"  # 7 s2 lays 8C; 8 s3 JH takes the single 8C: a plain capture (R4.3)
    " 2C QC QD"  # 9, 10 laid; 11 s2 QD takes 3 cards for team 0
    " 6C 6D"  # 12 s3 lays 6C; 13 s0 6D: pishti, team 0
    " AC 2D KC"  # 14-16 laid: the pile is AC 2D KC when the first deal is over
)
DEAL2_A = "3C 5D 8D TC 9C 2H AD 4H 6H 7H QH 3D 5H 8H TD 9D"  # 17-32 all laid
DEAL3_A = (
    "JS"  # 33 s0 JS takes the 19 cards on the table, 20 with itself, for team 0
    " AH 2S 3S 4S 5S 6S 7S 8S 9H QS AS KH"  # 34-45 laid
    " KS"  # 46 s1 KS takes 13 cards for team 1
    " TH TS"  # 47 s2 lays TH; 48 s3 TS takes it: the last card, no pishti (R4.5)
)
PLAYS_A = f"{DEAL1_A} {DEAL2_A} {DEAL3_A}"
# Team 0: 3 (QD) + 2 (6D) + 20 (JS) = 25 cards; aces AC AD, jack JS, 2C, TD,
#   one pishti: 2 + 1 + 2 + 3 + 10 = 18 points.
# Team 1: 6 + 2 + 2 + 2 + 13 + 2 = 27 cards (most cards); aces AH AS; jacks
#   JC JD JH; one pishti and one jack pishti: 2 + 3 + 3 + 10 + 20 = 38 points.

# -- Scenario B: A with another last deal, so that cards are left on the table.
DEAL3_B = (
    "JS"  # 33 s0 JS takes 20 cards for team 0
    " AH 2S 3S 4S 5S 6S 7S 8S 9H QS KH"  # 34-44 laid
    " KS"  # 45 s0 KS takes 12 cards for team 0: the last capture of the deck
    " TH AS TS"  # 46-48 laid; seat 3 (team 1) plays last, the three go to team 0 (R5.1)
)
PLAYS_B = f"{DEAL1_A} {DEAL2_A} {DEAL3_B}"
# Team 0: 3 + 2 + 20 + 12 + 3 = 40 cards; four aces, JS, 2C, TD, most cards,
#   one pishti: 4 + 1 + 2 + 3 + 3 + 10 = 23 points.
# Team 1: 6 + 2 + 2 + 2 = 12 cards; jacks JC JD JH, a pishti and a jack
#   pishti: 3 + 10 + 20 = 33 points.

# -- Scenario C: 26 cards each (R5.3).  Every card but the jacks, in the order
# A 2 ... T Q K of clubs, then diamonds, hearts, spades: no two in a row share
# a rank, so nothing is taken but by the jacks.
MIDDLE_C = "AC 2C 3C 4C"
PLAYS_C = (
    "5C 6C 7C 8C 9C TC QC KC AD 2D 3D 4D 5D 6D 7D 8D 9D TD QD KD AH"  # 1-21 laid
    " JC"  # 22 (team 1) takes the 4 middle cards, 21 laid ones and itself: 26 cards
    " JD"  # 23 (team 0) on the empty table: starts a pile (R3.3)
    " 2H 3H 4H 5H 6H 7H 8H 9H TH QH KH AS 2S 3S 4S 5S 6S 7S 8S 9S TS QS KS"  # 24-46
    " JH"  # 47 (team 0) takes 24 cards and itself: 25 cards, the last capture
    " JS"  # 48 (team 1) on the empty table; it goes to team 0 at the end (R5.1)
)
# Team 0: 25 + 1 = 26 cards; ace AS, jacks JD JH JS: 4 points.
# Team 1: 26 cards; aces AC AD AH, jack JC, 2C, TD: 3 + 1 + 2 + 3 = 9 points.
# Nobody scores most cards: 13 card points in all (R5.3, R5.4).


def deck_json(players: int, dealer: int, middle: str, plays: str, played: int = 48) -> dict:
    """One deck of an R10 record: the deal that yields ``plays``, the first ``played`` played."""
    order = cards(plays)
    deals = deals_from_plays(players, dealer, order)
    return {
        "dealer": dealer,
        "middle": middle.split(),
        "deals": [[[card_text(c) for c in hand] for hand in deal] for deal in deals],
        "plays": [card_text(c) for c in order[:played]],
    }


def record_json(players: int, target: int, *decks: dict) -> dict:
    """An R10 record from :func:`deck_json` decks."""
    return {"players": players, "target": target, "decks": list(decks)}
