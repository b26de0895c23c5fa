"""The optional observe hook: a plug-in is told every event as its seat sees it (R7.7)."""

from __future__ import annotations

from typer.testing import CliRunner

from pishti.arena import play_game
from pishti.arena.duplicate import BotFailed
from pishti.cli import app
from tests.bots.misbehaving import Watcher

M = "tests.bots.misbehaving"


def test_a_watcher_in_the_arena_sees_every_play_of_every_deck() -> None:
    Watcher.LOG.clear()
    game = play_game(f"{M}:Watcher", "novice", players=4, target=51, seed=2, index=0, swapped=False)
    kinds = [kind for _, kind, _ in Watcher.LOG]
    # Two seats of the watcher each see 48 plays per deck, those after their last card too.
    assert kinds.count("CardPlayed") == 2 * 48 * game.decks
    assert kinds.count("DeckStarted") == 2 * game.decks
    assert kinds[:2] == ["DeckStarted", "DeckStarted"]  # the first deck's, for both seats
    assert kinds.count("MatchOver") == 2
    seen_decks = {deck for _, kind, deck in Watcher.LOG if kind == "DeckStarted"}
    assert seen_decks == set(range(game.decks))


def test_the_watchers_copy_of_a_deal_holds_only_its_own_hand() -> None:
    from pishti.bots.guard import GuardedBot
    from pishti.bots.plugins import make_plugin_bot
    from pishti.engine import CardsDealt, Match

    told: list[object] = []

    class Keep(Watcher):
        def observe(self, event: object) -> None:
            told.append(event)

    bot = GuardedBot(Keep(1), "keep")
    match = Match(4, 101, seed=3)
    from pishti.engine import event_for_seat

    for event in match.events:
        bot.observe(event_for_seat(event, 1))
    (dealt,) = [e for e in told if isinstance(e, CardsDealt)]
    assert [len(h) for h in dealt.hands] == [0, 4, 0, 0]
    assert make_plugin_bot(f"{M}:Watcher", 1).name == "watcher"


def test_an_observe_hook_that_raises_is_a_failing_bot() -> None:
    try:
        play_game(
            f"{M}:BadObserver", "novice", players=2, target=51, seed=2, index=0, swapped=False
        )
    except BotFailed as exc:
        assert str(exc).startswith(f"bot '{M}:BadObserver' at seat ")
        assert str(exc).endswith("deck 1: raised KeyError: 'no such card' (in observe)")
    else:
        raise AssertionError("the failing hook was not reported")


def test_play_tells_the_watcher_and_survives_a_failing_hook() -> None:
    runner = CliRunner()
    args = ["play", "--seed", "5", "--target", "51", "--players", "2"]
    result = runner.invoke(app, [*args, "--bots", f"{M}:BadObserver"], input="1\n" * 400)
    assert result.exit_code == 0, result.output
    lines = [x for x in result.output.splitlines() if x.startswith("pishti: bot")]
    assert lines == [
        f"pishti: bot '{M}:BadObserver' at seat 1, match seed 5, deck 1: raised KeyError: "
        "'no such card' (in observe); the standard bot plays seat 1 from now on"
    ]
    assert "Match over after" in result.output


def test_events_kept_after_a_slow_last_move_reach_the_bot_when_the_match_ends() -> None:
    from tests.bots.misbehaving import SlowLast

    SlowLast.LOG.clear()
    game = play_game(
        f"{M}:SlowLast",
        "standard",
        players=2,
        target=51,
        seed=2,
        index=0,
        swapped=False,
        move_time=0.2,
    )
    # Its last move of every deck runs over: the plays after it, the count and
    # the match's end are kept, then shown; the last deck's at the match's end.
    assert game.fallbacks == (game.decks, 0)
    kinds = [kind for kind, _ in SlowLast.LOG]
    for deck in range(game.decks):
        assert [k for k, d in SlowLast.LOG if d == deck].count("CardPlayed") == 48
    assert kinds.count("DeckCounted") == game.decks
    assert kinds[-1] == "MatchOver"
