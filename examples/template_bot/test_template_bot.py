"""Tests for the template plug-in: copy them with it."""

from __future__ import annotations

from template_bot import TemplateBot, rebuild_pile

from pishti.arena import play_pair
from pishti.engine import Match, parse_card, seat_view

SPEC = "template_bot:TemplateBot"


def _play_to_end(match: Match, bots: dict[int, TemplateBot]) -> None:
    for event in match.events:
        for bot in bots.values():
            bot.observe(event)
    while not match.finished:
        seat = match.to_play
        assert seat is not None
        view = seat_view(match, seat)
        card = bots[seat].choose(view)
        assert type(card) is int and card in view.legal_cards
        for event in match.play(card):
            for bot in bots.values():
                bot.observe(event)


def test_it_plays_whole_matches_with_legal_cards_and_the_same_seed_plays_the_same() -> None:
    def run() -> list[int]:
        match = Match(2, 51, seed=4)
        _play_to_end(match, {0: TemplateBot(1), 1: TemplateBot(2)})
        return [p.card for p in match.history]

    assert run() == run()


def test_the_pile_rebuilt_from_the_history_has_the_top_card_on_top() -> None:
    match = Match(4, 101, seed=3)
    bots = {s: TemplateBot(s) for s in range(4)}
    for _ in range(30):
        seat = match.to_play
        assert seat is not None
        view = seat_view(match, seat)
        pile = rebuild_pile(view)
        assert (pile[-1] if pile else None) == view.top_card
        hidden = 3 if view.face_down_team is None else 0
        assert len(pile) + hidden == view.pile_size
        match.play(bots[seat].choose(view))


def test_it_takes_with_the_top_cards_rank() -> None:
    # The first seed whose opening hand holds the face-up card's rank.
    for seed in range(100):
        match = Match(2, 101, seed=seed)
        seat = match.to_play
        assert seat is not None
        view = seat_view(match, seat)
        same = [c for c in view.hand if c >> 2 == view.face_up >> 2]
        if same:
            assert TemplateBot(0).choose(view) == min(same)
            return
    raise AssertionError("no opening hand held the face-up card's rank")


def test_cards_are_ints_rank_times_four_plus_suit() -> None:
    # Ranks A=0, 2=1, ..., 9=8, T=9, J=10, Q=11, K=12; suits C=0, D=1, H=2, S=3 (R1.2).
    assert parse_card("9S") == 8 * 4 + 3
    assert parse_card("JD") >> 2 == 10


def test_observe_counts_matches_decks_and_every_play() -> None:
    match = Match(4, 51, seed=6)
    bots = {s: TemplateBot(s) for s in range(4)}
    _play_to_end(match, bots)
    assert bots[1].matches == 1
    assert bots[1].decks == len(match.decks)
    assert bots[1].plays_seen == 48  # all of the last deck, after its own last card too


def test_the_arena_plays_it_as_a_plugin() -> None:
    pair = play_pair(SPEC, "novice", 2, 51, 0, 0)
    assert all(game.decks >= 1 for game in pair.games)
