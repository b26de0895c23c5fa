"""``pishti play``: a person plays a full match in the terminal against bots.

The person sits at seat 0; bots take the other seats (in the four-player game
seat 2, across the table, is the person's partner, R1.3).  Everything the
screen shows comes from the person's :func:`~pishti.engine.view.seat_view` and
:func:`~pishti.engine.view.event_for_seat` (R7.7): the own hand, the top card
and the pile's size (never the cards underneath), hand and stock sizes, the
pishti record cards, the face-down cards once the person's team took them,
each card as it is played, and the count table after every deck (R5.5).
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from pishti.bots import Bot, StandardBot, make_bot
from pishti.bots.guard import (
    BUSY,
    DEFAULT_MOVE_TIME,
    OVERTIME,
    BotFault,
    GuardedBot,
    check_card,
    fault_line,
)
from pishti.bots.plugins import is_plugin_spec
from pishti.cli.app import app, fail
from pishti.cli.arena import allow_local_plugins, move_time_limit
from pishti.cli.count import count_table
from pishti.cli.files import output_path, replace_file
from pishti.engine import (
    TARGETS,
    Card,
    CardPlayed,
    CardsDealt,
    DeckCounted,
    DeckStarted,
    Event,
    JackPishti,
    Match,
    MatchOver,
    PileCaptured,
    Pishti,
    SeatView,
    card_symbol,
    event_for_seat,
    seat_view,
    team_of,
)
from pishti.records import MatchRecord, deck_results, match_record, write_record

HUMAN_SEAT = 0
"""The seat the person plays."""

KeyReader = Callable[[str], str]
"""``read_key(prompt) -> key``: one answer from the person; raises EOFError when input ends."""


class Quit(Exception):
    """The person asked to leave the match."""


class Hangup(KeyboardInterrupt):
    """SIGTERM or SIGHUP (the terminal was closed) stopped the match.

    A KeyboardInterrupt, so that it passes through whatever Ctrl-C passes
    through (a guarded bot's call, the key reader) to the same handling: the
    record is written before the program ends.

    Attributes:
        signum: the signal's number.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


@contextlib.contextmanager
def hangups_stop_the_match() -> Iterator[None]:
    """While the match is played, SIGTERM and SIGHUP raise :class:`Hangup` in the
    main thread, as Ctrl-C raises KeyboardInterrupt; the handlers they had are
    restored on leaving.  Off the main thread (where no handler can be set)
    nothing changes."""

    def stop(signum: int, frame: object) -> None:
        raise Hangup(signum)

    saved: dict[int, object] = {}
    for name in ("SIGTERM", "SIGHUP"):
        number = getattr(signal, name, None)
        if number is None:  # not on this system
            continue
        try:
            saved[number] = signal.signal(number, stop)
        except ValueError:  # not the main thread
            continue
    try:
        yield
    finally:
        for number, handler in saved.items():
            signal.signal(number, handler)  # type: ignore[arg-type]


def show_card(card: Card) -> str:
    """A card for the screen, with its suit symbol; hearts and diamonds in red."""
    text = card_symbol(card)
    return f"[red]{text}[/red]" if card & 3 in (1, 2) else text


def cards_count(n: int) -> str:
    """ "1 card", "5 cards"."""
    return f"{n} card" if n == 1 else f"{n} cards"


def show_cards(cards: Sequence[Card]) -> str:
    """Cards for the screen, separated by spaces ("-" for none)."""
    return " ".join(show_card(c) for c in cards) if cards else "-"


class TerminalTable:
    """One match played in a terminal by a person at ``human`` with bots at the other seats.

    Attributes:
        match: the match (read by nobody but this class and the bots' views).
        human: the person's seat.  bots: a bot per other seat.
        console: where the screen is printed.  read_key: where keys come from.
        narrating: the number of the deck the screen is about (for checks).
    """

    def __init__(
        self,
        match: Match,
        human: int,
        bots: dict[int, Bot],
        console: Console,
        read_key: KeyReader,
        label: str = "the match",
    ) -> None:
        """Seat the person and the bots; ``label`` names the match in reports
        of a failing bot (``"match seed 5"``).

        Raises:
            ValueError: a seat other than ``human`` has no bot.
        """
        missing = [s for s in range(match.players) if s != human and s not in bots]
        if missing:
            raise ValueError(f"no bot for seats {missing}")
        self.match = match
        self.human = human
        self.bots = bots
        self.console = console
        self.read_key = read_key
        self.narrating = match.deck_number
        self.label = label

    # -- names ---------------------------------------------------------------

    def seat_name(self, seat: int) -> str:
        """ "you", or the seat with its role and bot, e.g. "seat 1 (opponent, standard)"."""
        if seat == self.human:
            return "you"
        role = "partner" if team_of(seat) == team_of(self.human) else "opponent"
        return f"seat {seat} ({role}, {escape(str(self.bots[seat].name))})"  # a plug-in's name

    def team_name(self, team: int) -> str:
        """ "your team" or "their team"; at two players, where a team is one seat,
        "you" or "your opponent"."""
        mine = team == team_of(self.human)
        if self.match.players == 2:
            return "you" if mine else "your opponent"
        return "your team" if mine else "their team"

    # -- the match -----------------------------------------------------------

    def run(self) -> None:
        """Play the match to its end.

        Raises:
            Quit: the person pressed q.  EOFError: the input ended.
        """
        match = self.match
        self.intro()
        for event in match.events:
            self.narrate(event)
        self.tell(match.events)
        while not match.finished:
            seat = match.to_play
            assert seat is not None
            view = seat_view(match, seat)
            card = self.ask(view) if seat == self.human else self.bot_card(seat, view)
            events = match.play(card, seat)
            for event in events:
                self.narrate(event)
            self.tell(events)
        for seat, bot in list(self.bots.items()):  # events kept while a move ran over
            if isinstance(bot, GuardedBot):
                try:
                    bot.finish()
                except BotFault as fault:
                    self.report(seat, bot, match.deck_number, fault, " (in observe)")

    def tell(self, events: list[Event]) -> None:
        """Give each event, as its seat sees it (R7.7), to the bots with an
        ``observe`` hook; a hook that fails is reported like a move
        (:meth:`bot_card`)."""
        for event in events:
            for seat, bot in list(self.bots.items()):
                if not isinstance(bot, GuardedBot) or not bot.observes:
                    continue
                try:
                    bot.observe(event_for_seat(event, seat))
                except BotFault as fault:
                    self.report(seat, bot, event.deck, fault, " (in observe)")

    def bot_card(self, seat: int, view: SeatView) -> Card:
        """The card of the bot at ``seat``, checked (:mod:`pishti.bots.guard`).

        A bot that returns something other than one of its cards, or raises,
        is reported in one line and the standard bot takes its seat for the
        rest of the match; a move over the time limit is reported and the
        standard bot plays that move (R7.2).  The match goes on either way.
        """
        bot = self.bots[seat]
        try:
            return check_card(bot.choose(view), view)
        except BotFault as fault:
            self.report(seat, bot, view.deck, fault)
            return StandardBot().choose(view)

    def report(self, seat: int, bot: Bot, deck: int, fault: BotFault, where: str = "") -> None:
        """Say in one line how the bot at ``seat`` failed; after anything but a
        move over the time the standard bot takes the seat (R7.2)."""
        spec = bot.spec if isinstance(bot, GuardedBot) else bot.name
        line = fault_line(spec, seat, self.label, deck, fault) + where
        if fault.kind in (OVERTIME, BUSY):
            line += "; the standard bot plays this move" if not where else ""
        else:
            self.bots[seat] = StandardBot()
            line += f"; the standard bot plays seat {seat} from now on"
        self.console.print(f"[bold red]pishti:[/bold red] {escape(line)}", soft_wrap=True)

    def intro(self) -> None:
        """Who sits where, and the target (R6.1)."""
        match = self.match
        c = self.console
        c.print(f"[bold]Pishti[/bold]: {match.players} players, first to {match.target} points.")
        for seat in range(match.players):
            if seat != self.human:
                c.print(f"  {self.seat_name(seat)}")
        c.print("Play a card with its number key; q leaves the match.")

    def ask(self, view: SeatView) -> Card:
        """Show the table and read the person's card (R3.1).

        Raises:
            Quit: the person pressed q.  EOFError: the input ended.
        """
        self.show_table(view)
        hand = sorted(view.legal_cards, key=lambda c: (c >> 2, c & 3))
        keys = "  ".join(f"[bold][{i}][/bold] {show_card(c)}" for i, c in enumerate(hand, 1))
        while True:
            self.console.print(f"Your hand: {keys}")
            keys_hint = "1" if len(hand) == 1 else f"1-{len(hand)}"
            answer = self.read_key(f"Card to play ({keys_hint}, q to leave): ").strip().lower()
            if answer in ("q", "quit"):
                raise Quit
            if answer in [str(i) for i in range(1, len(hand) + 1)]:  # not "²", which isdigit
                return hand[int(answer) - 1]
            keys_said = "1" if len(hand) == 1 else f"a key from 1 to {len(hand)}"
            self.console.print(f"Press {keys_said}, or q to leave.")

    def show_table(self, view: SeatView) -> None:
        """The table as the person's seat may see it (R7.7)."""
        c = self.console
        deal = (48 - view.stock_size) // (4 * view.players)
        deals = 48 // (4 * view.players)
        stock = view.stock_size
        c.rule(f"Deck {view.deck + 1}, deal {deal} of {deals}, {stock} cards in the stock")
        for seat in range(view.players):
            if seat != self.human:
                size = view.hand_sizes[seat]
                backs = f"{'▮' * size} " if size else ""
                c.print(f"  {self.seat_name(seat)}: {backs}{cards_count(size)}")
        if view.top_card is None:
            c.print("  Table: empty")
        else:
            pile = cards_count(view.pile_size)
            c.print(f"  Table: {show_card(view.top_card)} on top of a pile of {pile}")
        for team in (0, 1):
            if view.pishti_cards[team]:
                c.print(f"  Pishtis, {self.team_name(team)}: {show_cards(view.pishti_cards[team])}")
        mine = team_of(self.human)
        if view.face_down is not None:
            c.print(f"  Face-down cards {self.team_name(mine)} took: {show_cards(view.face_down)}")
        c.print(
            f"  Score: {self.team_name(mine)} {view.totals[mine]},"
            f" {self.team_name(1 - mine)} {view.totals[1 - mine]}"
            f" (cards taken this deck: {view.taken_counts[mine]} to"
            f" {view.taken_counts[1 - mine]})"
        )

    def narrate(self, event: Event) -> None:
        """Tell what happened, as the person's seat may see it (R7.7)."""
        event = event_for_seat(event, self.human)
        self.narrating = event.deck
        c = self.console
        if isinstance(event, DeckStarted):
            c.rule(f"Deck {event.deck + 1}")
            c.print(
                f"Dealer: {self.seat_name(event.dealer)}. Face up on the table: "
                f"{show_card(event.top_card)} (on 3 face-down cards)."
            )
        elif isinstance(event, CardsDealt):
            c.print(f"Cards dealt. Yours: {show_cards(event.hands[self.human])}")
        elif isinstance(event, CardPlayed):
            who = self.seat_name(event.seat)
            verb = "play" if event.seat == self.human else "plays"
            c.print(f"{who[0].upper()}{who[1:]} {verb} {show_card(event.card)}")
        elif isinstance(event, PileCaptured):
            takes = "take" if event.seat == self.human else "takes"
            line = f"  ... and {takes} {cards_count(event.count)}"
            if self.match.players == 4:
                line += f" for {self.team_name(event.team)}"
            if event.took_face_down:
                line += ", the face-down ones included"
                if event.face_down is not None:
                    line += f": {show_cards(event.face_down)}"
            c.print(line + ".")
        elif isinstance(event, Pishti):
            c.print("  [bold yellow]Pishti![/bold yellow] 10 points.")
        elif isinstance(event, JackPishti):
            c.print("  [bold yellow]Jack pishti![/bold yellow] 20 points.")
        elif isinstance(event, DeckCounted):
            if event.last_pile:
                go = "goes" if event.last_pile == 1 else "go"
                c.print(
                    f"The {cards_count(event.last_pile)} left on the table {go} to "
                    f"{self.team_name(event.last_capture_team)}, "
                    f"{'which' if self.match.players == 4 else 'who'} took last (R5.1)."
                )
            result = {"decks": [deck_results(self.match)[event.deck]]}
            names = (self.team_name(0), self.team_name(1))
            c.print(count_table(result, self.match.players, first=event.deck + 1, names=names))
        elif isinstance(event, MatchOver):
            mine = team_of(self.human)
            totals = event.totals
            if event.winner is None:
                outcome = "a draw at the deck cap (R6.4)"
            else:
                winner = self.team_name(event.winner)
                outcome = f"{winner} {'win' if winner == 'you' else 'wins'}"
            c.print(
                f"[bold]Match over after {event.decks} decks: {outcome}, "
                f"{totals[mine]} to {totals[1 - mine]}.[/bold]"
            )


def read_line_or_key(prompt: str) -> str:
    """Read one key from a terminal, or one line when the input is not a terminal.

    The line of the prompt is ended before either error, so that what is said
    next starts on a line of its own.

    Raises:
        EOFError: the input ended (or Ctrl-D on a terminal).
        KeyboardInterrupt: Ctrl-C on a terminal.
    """
    say(prompt, nl=False)
    if sys.stdin.isatty():
        try:
            key = typer.getchar()  # raw mode: Ctrl-C and Ctrl-D come as these errors
        except (EOFError, KeyboardInterrupt):
            say()
            raise
        except OSError:  # the terminal was closed (EIO)
            raise EOFError from None
        if not key:
            raise EOFError
        say(key)
        return key
    try:
        line = sys.stdin.readline()
    except KeyboardInterrupt:
        say()
        raise
    except OSError:
        raise EOFError from None
    if not line:
        say()
        raise EOFError
    say(line.strip())
    return line


def say(text: str = "", nl: bool = True) -> None:
    """Echo ``text`` to the screen, or nothing when the screen is gone (a closed
    terminal gives EIO), so that what the match was doing (writing its record)
    goes on."""
    with contextlib.suppress(OSError):
        typer.echo(text, nl=nl)


@contextlib.contextmanager
def keys_not_echoed() -> Iterator[None]:
    """On a terminal, keys pressed while the bots play are not echoed into the
    table (each answer is still echoed by :func:`read_line_or_key`); the
    terminal's settings are restored on leaving, however the match ends."""
    try:
        import termios
    except ImportError:  # not a POSIX terminal
        termios = None  # type: ignore[assignment]
    if termios is None or not sys.stdin.isatty():
        yield
        return
    fd = sys.stdin.fileno()
    try:
        saved = termios.tcgetattr(fd)
    except termios.error:
        yield
        return
    quiet = termios.tcgetattr(fd)
    quiet[3] &= ~termios.ECHO
    termios.tcsetattr(fd, termios.TCSADRAIN, quiet)
    try:
        yield
    finally:
        with contextlib.suppress(termios.error):  # the terminal may be gone (SIGHUP)
            termios.tcsetattr(fd, termios.TCSADRAIN, saved)


@app.command("play")
def play_command(
    players: Annotated[int, typer.Option(help="4 (you and a bot partner) or 2.")] = 4,
    bots: Annotated[
        str, typer.Option(help="The bots' level (random ... expert) or a module:Class plug-in.")
    ] = "standard",
    target: Annotated[int, typer.Option(help="Points to reach: 51, 101 or 151.")] = 101,
    seed: Annotated[
        int | None, typer.Option(help="Seed of the deals and the bots (random if not given).")
    ] = None,
    move_time: Annotated[
        float,
        typer.Option(
            help="Seconds a plug-in bot may take per move; a move over it is stopped and "
            "the standard bot plays it. 0: no limit.",
        ),
    ] = DEFAULT_MOVE_TIME,
    record: Annotated[
        str | None,
        typer.Option(
            metavar="<path>",
            help="Write the match record (R10) to this file (replacing it) once the match is "
            "over or you leave it, for pishti replay and pishti analyse.",
        ),
    ] = None,
) -> None:
    """Play a match in the terminal against bots (with a bot partner at four).

    You sit at seat 0 and pick each card with its number key.
    """
    if players not in (2, 4):
        raise fail("--players must be 4 or 2", 2)
    if target not in TARGETS:
        raise fail(f"--target must be one of {', '.join(map(str, TARGETS))}", 2)
    allow_local_plugins()
    if seed is None:
        seed = random.SystemRandom().randrange(2**31)
    limit = move_time_limit(move_time)
    try:
        seated = {s: make_bot(bots, seed * 10 + s) for s in range(players) if s != HUMAN_SEAT}
    except ValueError as exc:
        raise fail(str(exc), 2) from None
    if is_plugin_spec(bots):
        seated = {s: GuardedBot(bot, bots, limit) for s, bot in seated.items()}
    record_file = None if record is None else output_path(record, "--record")
    match = Match(players, target, seed=seed)
    console = Console(highlight=False)
    label = f"match seed {seed}"
    table = TerminalTable(match, HUMAN_SEAT, seated, console, read_line_or_key, label)

    def stopped(message: str, status: int) -> typer.Exit:
        # The record is written first; the screen may be gone (a closed terminal
        # gives EIO), so what cannot be said is not said.
        with contextlib.suppress(OSError):
            save_record(match, record_file, console)
        with contextlib.suppress(OSError):
            fail(f"{message} (seed {seed})")
        return typer.Exit(status)

    try:
        with hangups_stop_the_match(), keys_not_echoed():
            table.run()
    except Quit:
        raise stopped("you left the match", 1) from None
    except EOFError:
        raise stopped("the input ended before the match was over", 1) from None
    except Hangup as stop:
        name = signal.Signals(stop.signum).name
        raise stopped(f"the match was stopped by {name}", 128 + stop.signum) from None
    except KeyboardInterrupt:
        raise stopped("you stopped the match with Ctrl-C", 130) from None
    except OSError as exc:  # the screen is gone (EIO, a closed pipe)
        raise stopped(f"the match could not be shown ({exc.strerror})", 1) from None
    except SystemExit:  # rich ends the program when the pipe it writes to closes
        raise stopped("the output of the match was closed", 1) from None
    console.print(f"The match's seed: {seed} (--seed {seed} plays these deals again).")
    if not save_record(match, record_file, console):
        raise typer.Exit(1)


def write_record_file(record: MatchRecord, path: Path) -> None:
    """Write ``record`` (R10) to ``path`` whole or not at all (:func:`replace_file`).

    Raises:
        OSError: the file could not be written.
    """
    replace_file(path, lambda temporary: write_record(record, temporary))


def save_record(match: Match, path: Path | None, console: Console) -> bool:
    """Write ``match``'s record (R10), finished or not, to ``path`` (nothing when
    None), replacing a file there, and say so on ``console``.  When that write
    fails the record goes to a new file in the system's temporary folder
    instead, so the match is not lost.

    Returns:
        False when it could not be written to ``path`` (said in one line on
        stderr, with where it went instead), else True.
    """
    if path is None:
        return True
    record = match_record(match)
    try:
        write_record_file(record, path)
    except OSError as exc:
        fd, spare = tempfile.mkstemp(prefix="pishti-record-", suffix=".json")
        os.close(fd)
        try:
            write_record(record, spare)
        except OSError:
            fail(f"the match record could not be written to {path} ({exc.strerror})")
        else:
            fail(
                f"the match record could not be written to {path} ({exc.strerror}); "
                f"it is in {spare}"
            )
        return False
    decks = len(record.decks)
    plural = "s" if decks != 1 else ""
    text = f"Match record ({decks} deck{plural}) written to {escape(str(path))}."
    console.print(text, soft_wrap=True)  # the path in one piece, to copy
    return True
