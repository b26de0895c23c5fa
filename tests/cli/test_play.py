"""``pishti play``: a full match from keys on stdin, and never a hidden card on screen (R7.7)."""

from __future__ import annotations

import dataclasses
import errno
import io
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from pishti.bots import make_bot
from pishti.cli import app, play
from pishti.cli.play import Quit, TerminalTable
from pishti.engine import Card, Match, card_symbol, team_of
from pishti.engine.view import seat_view
from pishti.records import MatchRecord, read_record, replay

runner = CliRunner()
SYMBOL = re.compile(r"(10|[A2-9JQK])([♣♦♥♠])")
BY_SYMBOL = {card_symbol(c): c for c in range(52)}


def hidden_from(match: Match, deck_number: int, seat: int) -> set[Card]:
    """What ``seat`` may not see of deck ``deck_number`` now (R7.7): other hands,
    the stock, the cards under the top card, face-down cards its team did not take."""
    deck = match.decks[deck_number]
    hidden: set[Card] = set()
    for s, hand in enumerate(deck.hands):
        if s != seat:
            hidden.update(hand)
    for deal in deck.deals[deck.deal_index :]:
        for hand in deal:
            hidden.update(hand)
    hidden.update(deck.pile[:-1])
    if deck.face_down_team != team_of(seat):
        hidden.update(deck.middle[:3])
    return hidden


class CheckedScreen(io.StringIO):
    """A screen that fails the test when a write shows a card its seat may not see."""

    def __init__(self, seat: int) -> None:
        super().__init__()
        self.seat = seat
        self.table: TerminalTable | None = None
        self.cards_shown = 0

    def write(self, text: str) -> int:
        table = self.table
        assert table is not None
        hidden = hidden_from(table.match, table.narrating, self.seat)
        for match in SYMBOL.finditer(text):
            card = BY_SYMBOL[match.group(0)]
            self.cards_shown += 1
            assert card not in hidden, f"{match.group(0)} is hidden from seat {self.seat}: {text!r}"
        return super().write(text)


@pytest.mark.parametrize(("players", "level"), [(4, "standard"), (2, "novice")])
def test_the_screen_never_shows_a_card_the_seat_may_not_see(players: int, level: str) -> None:
    match = Match(players, 51, seed=8)
    screen = CheckedScreen(0)
    console = Console(file=screen, width=100, color_system=None)
    bots = {s: make_bot(level, s) for s in range(1, players)}
    # Bad keys first, asked again: "²" passes isdigit() and crashed int() (a new user).
    answers = iter(["x", "9", "²", "0"] + ["2", "1"] * 1000)
    table = TerminalTable(match, 0, bots, console, lambda prompt: next(answers))
    screen.table = table
    table.run()
    assert match.finished
    out = screen.getvalue()
    assert out.count("Press a key from 1 to 4, or q to leave.") == 4
    assert "Deck count (R5.5)" in out
    assert "Match over after" in out
    assert screen.cards_shown > 100


def test_a_full_match_from_keys_on_stdin() -> None:
    result = runner.invoke(
        app, ["play", "--seed", "5", "--target", "51", "--bots", "novice"], input="1\n" * 400
    )
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Pishti: 4 players, first to 51 points." in out
    assert "seat 2 (partner, novice)" in out
    assert out.count("Deck count (R5.5)") == out.count("match total")
    assert "Match over after" in out
    assert "Your hand: [1]" in out


def test_the_person_may_leave_and_running_out_of_input_stops_the_match() -> None:
    result = runner.invoke(app, ["play", "--seed", "5", "--players", "2"], input="q\n")
    assert result.exit_code == 1
    assert "you left the match (seed 5)" in result.output
    result = runner.invoke(app, ["play", "--seed", "5"], input="1\n")
    assert result.exit_code == 1
    # The message starts on a line of its own, not after the prompt.
    assert "q to leave): \npishti: the input ended before the match was over (seed 5)\n" in (
        result.output
    )


def test_ctrl_c_stops_the_match_with_its_seed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def interrupted(prompt: str) -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr("pishti.cli.play.read_line_or_key", interrupted)
    result = runner.invoke(app, ["play", "--seed", "5", "--players", "2"])
    assert result.exit_code == 130
    assert result.output.endswith("pishti: you stopped the match with Ctrl-C (seed 5)\n")


def test_the_match_record_is_written_when_the_match_is_over(tmp_path: Path) -> None:
    path = tmp_path / "match.json"
    result = runner.invoke(
        app,
        ["play", "--seed", "5", "--target", "51", "--bots", "novice", "--record", str(path)],
        input="1\n" * 400,
    )
    assert result.exit_code == 0, result.output
    assert "Match over after 4 decks: their team wins, 31 to 53." in result.stdout
    assert result.stdout.endswith(
        "The match's seed: 5 (--seed 5 plays these deals again).\n"
        f"Match record (4 decks) written to {path}.\n"
    )
    record = read_record(path)
    assert (record.players, record.target, len(record.decks)) == (4, 51, 4)
    match = replay(record)  # the same match, card for card (R10)
    assert match.finished
    assert match.totals == [31, 53]


def test_a_record_file_gets_the_usual_permissions_and_a_symlink_is_followed(
    tmp_path: Path,
) -> None:
    # Found by a new user: the record was made 0600 (the temporary file's mode),
    # and a symlink named as --record was replaced by a file.
    args = ["play", "--seed", "5", "--target", "51", "--bots", "novice", "--record"]
    old = os.umask(0o022)
    try:
        new = tmp_path / "new.json"
        assert runner.invoke(app, [*args, str(new)], input="1\n" * 400).exit_code == 0
        assert new.stat().st_mode & 0o777 == 0o644
        kept = tmp_path / "kept.json"
        kept.write_text("old")
        kept.chmod(0o640)
        assert runner.invoke(app, [*args, str(kept)], input="1\n" * 400).exit_code == 0
        assert kept.stat().st_mode & 0o777 == 0o640
        link = tmp_path / "link.json"
        link.symlink_to(kept)
        kept.write_text("old")
        assert runner.invoke(app, [*args, str(link)], input="1\n" * 400).exit_code == 0
    finally:
        os.umask(old)
    assert link.is_symlink()
    assert replay(read_record(kept)).totals == [31, 53]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.json", "link.json", "new.json"]


def test_a_record_symlink_is_checked_where_it_points(tmp_path: Path) -> None:
    # Found by a new user: a link into a missing folder was accepted and the whole
    # match played before the record failed; a symlink loop was replaced by a file.
    dangling = tmp_path / "dangling.json"
    dangling.symlink_to(tmp_path / "none" / "x.json")
    loop = tmp_path / "loop"
    loop.symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(loop)
    for path, said in (
        (dangling, f"the folder {tmp_path / 'none'} does not exist"),
        (loop, "Too many levels of symbolic links"),
    ):
        result = runner.invoke(app, ["play", "--record", str(path)], input="1\n" * 400)
        assert result.exit_code == 2, result.output
        assert result.stderr == f"pishti: --record {path}: {said}\n"
    assert loop.is_symlink() and dangling.is_symlink()


def test_one_card_left_on_the_table_goes_to_who_took_last() -> None:
    # Found by a new user: "The 1 card left on the table go to you".
    args = ["play", "--seed", "1", "--players", "2", "--target", "51", "--bots", "novice"]
    result = runner.invoke(app, args, input="1\n" * 400)
    assert result.exit_code == 0, result.output
    assert "The 1 card left on the table goes to you, who took last (R5.1)." in result.stdout


def test_a_record_path_through_a_missing_folder_or_a_file_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found by a new user: "nodir/../r.json" was taken (resolved without nodir) and
    # reported under a name no other program can open; "r.json/x.json" was said to be
    # a missing folder; a read-only file failed only after the match.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "r.json").write_text("{}")
    (tmp_path / "ro.json").write_text("{}")
    real_access = os.access
    monkeypatch.setattr(
        os, "access", lambda p, mode: Path(p).name != "ro.json" and real_access(p, mode)
    )
    for given, said in (
        ("nodir/../x.json", "the folder nodir/.. does not exist"),
        ("r.json/x.json", "r.json is not a folder"),
        ("ro.json", "the file there may not be written (read-only)"),
    ):
        result = runner.invoke(app, ["play", "--record", given], input="1\n" * 400)
        assert result.exit_code == 2, result.output
        assert result.stderr == f"pishti: --record {given}: {said}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json", "ro.json"]


def test_a_hand_with_no_cards_left_is_shown_without_a_gap() -> None:
    # Found by a new user: "seat 1 (opponent, novice):  0 cards", two spaces.
    match = Match(2, 51, seed=3)
    screen = io.StringIO()
    console = Console(file=screen, width=100, color_system=None)
    table = TerminalTable(match, 0, {1: make_bot("novice", 1)}, console, lambda prompt: "q")
    view = seat_view(match, 0)
    table.show_table(dataclasses.replace(view, hand_sizes=(4, 0)))
    assert "  seat 1 (opponent, novice): 0 cards\n" in screen.getvalue()
    table.show_table(view)
    assert "  seat 1 (opponent, novice): ▮▮▮▮ 4 cards\n" in screen.getvalue()


def test_the_record_of_a_match_left_holds_the_cards_played(tmp_path: Path) -> None:
    path = tmp_path / "left.json"
    result = runner.invoke(
        app,
        ["play", "--seed", "6", "--players", "2", "--record", str(path)],
        input="1\n1\nq\n",
    )
    assert result.exit_code == 1
    assert "Match record (1 deck) written to" in result.stdout
    assert "you left the match (seed 6)" in result.output
    record = read_record(path)
    assert len(record.decks) == 1
    deck = record.decks[0]
    # The person played two cards, the bot one after each (the bot seat plays
    # first when the person is not the dealer's left).
    assert len(deck.plays) in (4, 5)
    assert not replay(record).finished


def test_a_record_file_that_cannot_be_written_is_refused_before_the_match(
    tmp_path: Path,
) -> None:
    path = tmp_path / "missing" / "match.json"
    result = runner.invoke(app, ["play", "--seed", "5", "--record", str(path)], input="1\n")
    assert result.exit_code == 2
    assert f"--record {path}: the folder {path.parent} does not exist" in result.output
    assert "Pishti:" not in result.output  # no match was started
    result = runner.invoke(app, ["play", "--record", str(tmp_path)], input="1\n")
    assert result.exit_code == 2
    assert f"--record {tmp_path}: a folder; give a file name" in result.output
    # Found by a new user: a folder not yet made, named with a trailing slash, was
    # taken as a file name (the slash dropped) and a file of that name written.
    result = runner.invoke(app, ["play", "--record", f"{tmp_path}/newdir/"], input="1\n")
    assert result.exit_code == 2
    assert f"--record '{tmp_path}/newdir/': give a file name, not a folder" in result.output
    assert list(tmp_path.iterdir()) == []
    result = runner.invoke(app, ["play", "--record", ""], input="1\n")
    assert result.exit_code == 2
    assert "--record '': give a file name\n" in result.output
    result = runner.invoke(app, ["play", "--record", "/dev/full"], input="1\n")
    assert result.exit_code == 2
    assert "--record /dev/full: not a regular file" in result.output
    assert "Pishti:" not in result.output


def test_a_record_that_cannot_be_written_at_the_end_keeps_the_old_file_and_goes_elsewhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A full disk at the end of the match lost the whole record (a new-user trial
    # with /dev/full), and an emptied file would have lost the one already there.
    path = tmp_path / "match.json"
    path.write_text("an earlier record\n")
    real_write = play.write_record

    def disk_full(record: MatchRecord, where: str | Path) -> None:
        if Path(where).parent == tmp_path:
            Path(where).write_text("{")  # a part written, then the disk is full
            raise OSError(errno.ENOSPC, "No space left on device")
        real_write(record, where)

    monkeypatch.setattr(play, "write_record", disk_full)
    result = runner.invoke(
        app,
        ["play", "--seed", "5", "--players", "2", "--record", str(path)],
        input="1\n1\nq\n",
    )
    assert result.exit_code == 1
    found = re.search(
        f"could not be written to {re.escape(str(path))} \\(No space left on device\\); "
        "it is in (\\S+\\.json)",
        result.stderr.replace("\n", ""),
    )
    assert found, result.stderr
    assert path.read_text() == "an earlier record\n"  # untouched
    assert sorted(p.name for p in tmp_path.iterdir()) == ["match.json"]  # no leftovers
    spare = Path(found.group(1))
    try:
        assert len(read_record(spare).decks[0].plays) in (4, 5)
    finally:
        spare.unlink()


def test_play_refuses_bad_options() -> None:
    assert runner.invoke(app, ["play", "--players", "3"]).exit_code == 2
    result = runner.invoke(app, ["play", "--bots", "grandmaster"])
    assert result.exit_code == 2
    assert "unknown bot level" in result.output


def test_quit_is_an_exception_the_table_raises() -> None:
    match = Match(2, 51, seed=1)
    console = Console(file=io.StringIO())
    bots = {1: make_bot("random", 1)}
    table = TerminalTable(match, 0, bots, console, lambda prompt: "q")
    with pytest.raises(Quit):
        table.run()


def test_a_two_player_match_speaks_of_you_and_your_opponent() -> None:
    # Found by a new user: at two players, where a team is one seat, the match spoke
    # of "your team" and "their team".
    result = runner.invoke(
        app,
        ["play", "--seed", "5", "--players", "2", "--target", "51", "--bots", "novice"],
        input="1\n" * 400,
    )
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Match over after 3 decks: your opponent wins, 36 to 52." in out
    assert "The 4 cards left on the table go to you, who took last (R5.1)." in out
    assert "  Score: you 0, your opponent 0 (cards taken this deck: 0 to 6)" in out
    assert "  Pishtis, your opponent: 6♣" in out
    assert "  ... and takes 2 cards.\n" in out
    assert "You play J♦\n  ... and take 3 cards.\n" in out  # "and takes" once
    assert "┃ you (seat 0) ┃ your opponent (seat 1) ┃" in out
    assert "your team" not in out and "their team" not in out and "team 0" not in out


PISHTI = str(Path(sys.executable).with_name("pishti"))


def _play_on_pipes(seed: int, path: Path) -> subprocess.Popen[bytes]:
    """``pishti play`` at two players with ``--seed seed --record path``, its input,
    output and errors on pipes."""
    command = [PISHTI, "play", "--seed", str(seed), "--players", "2", "--record", str(path)]
    pipe = subprocess.PIPE
    return subprocess.Popen(command, stdin=pipe, stdout=pipe, stderr=pipe)


@pytest.mark.parametrize(("name", "status"), [("SIGTERM", 143), ("SIGHUP", 129)])
def test_a_match_stopped_by_a_signal_still_writes_its_record(
    tmp_path: Path, name: str, status: int
) -> None:
    # Found by a new user: closing the terminal (SIGHUP) or `kill` (SIGTERM) ended
    # the match without a word and without the record that --record promised.
    path = tmp_path / "match.json"
    with _play_on_pipes(6, path) as proc:
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        proc.stdin.write(b"1\n")
        proc.stdin.flush()
        out = b""
        deadline = time.monotonic() + 30
        while out.count(b"q to leave): ") < 2:  # the second prompt: one card played
            assert time.monotonic() < deadline, out.decode()
            chunk = os.read(proc.stdout.fileno(), 4096)
            assert chunk, out.decode()
            out += chunk
        proc.send_signal(getattr(signal, name))
        rest, err = proc.communicate(timeout=30)
    assert proc.returncode == status, err.decode()
    assert err.decode() == f"pishti: the match was stopped by {name} (seed 6)\n"
    assert (out + rest).decode().endswith(f"Match record (1 deck) written to {path}.\n")
    record = read_record(path)
    assert len(record.decks[0].plays) in (2, 3)  # yours, and the bot's if it played
    assert not replay(record).finished


def test_ctrl_c_at_a_piped_prompt_ends_the_prompt_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Found by a new user: with piped input, Ctrl-C's message followed the prompt on
    # the same line.
    class Interrupted(io.StringIO):
        def readline(self, size: int | None = -1) -> str:
            raise KeyboardInterrupt

    monkeypatch.setattr(sys, "stdin", Interrupted())
    with pytest.raises(KeyboardInterrupt):
        play.read_line_or_key("Your card (1-4, q to leave): ")
    assert capsys.readouterr().out == "Your card (1-4, q to leave): \n"


def test_a_plug_in_name_is_shown_as_text_not_markup() -> None:
    # Found by a new user: a bot named "odd[/x]" crashed `pishti play` (rich's markup),
    # and "[bold]loud" showed as "loud".  A plug-in cannot hurt a match.
    match = Match(2, 51, seed=8)
    bot = make_bot("random", 1)
    bot.name = "odd[/x] [bold]loud"  # type: ignore[misc]
    console = Console(file=io.StringIO(), width=100, color_system=None)
    table = TerminalTable(match, 0, {1: bot}, console, lambda prompt: "1")
    table.run()
    out = console.file.getvalue()  # type: ignore[attr-defined]
    assert "Seat 1 (opponent, odd[/x] [bold]loud) plays" in out


def test_a_closed_terminal_still_gets_its_record_written(tmp_path: Path) -> None:
    # Found by a new user: closing the terminal at a prompt (EIO on the next read and
    # write, and SIGHUP) ended in a traceback, and the record was never written.
    import pty

    path = tmp_path / "closed.json"
    pid, master = pty.fork()
    if pid == 0:  # the child: pishti play on the new terminal
        os.execv(PISHTI, [PISHTI, "play", "--seed", "11", "--players", "2", "--record", str(path)])
    out = b""
    deadline = time.monotonic() + 30
    while b"q to leave): " not in out:
        assert time.monotonic() < deadline, out.decode(errors="replace")
        out += os.read(master, 4096)
    os.close(master)  # the terminal window closed
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) in (129, 1)
    record = read_record(path)
    assert len(record.decks) == 1 and not replay(record).finished


def test_a_closed_output_still_gets_its_record_written(tmp_path: Path) -> None:
    # Found by a new user: `pishti play ... | head -3` ended with status 1, no word
    # and no record (rich ends the program when its pipe closes).
    path = tmp_path / "piped.json"
    with _play_on_pipes(3, path) as proc:
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        proc.stdout.readline()
        proc.stdout.close()  # as `| head -1` does
        proc.stdin.write(b"1\n" * 400)
        proc.stdin.close()
        err = proc.stderr.read()
        proc.wait(30)
    assert proc.returncode == 1
    assert err.decode() == "pishti: the output of the match was closed (seed 3)\n"
    assert not replay(read_record(path)).finished
