"""``pishti play`` with a plug-in bot that misbehaves: one line, and the match goes on."""

from __future__ import annotations

import contextlib
import os
import pty
import signal
import sys
from collections.abc import Iterator

import pytest
from typer.testing import CliRunner

from pishti.cli import app

runner = CliRunner()
M = "tests.bots.misbehaving"


def _play(spec: str, *extra: str) -> tuple[int, str]:
    args = ["play", "--seed", "5", "--target", "51", "--players", "2", "--bots", spec, *extra]
    result = runner.invoke(app, args, input="1\n" * 400)
    return result.exit_code, result.output


def test_a_card_it_does_not_hold_is_reported_and_the_standard_bot_takes_the_seat() -> None:
    code, out = _play(f"{M}:WrongCard")
    assert code == 0, out
    assert "Traceback" not in out
    assert (
        f"pishti: bot '{M}:WrongCard' at seat 1, match seed 5, deck 1: returned AC (0), "
        "a card it does not hold (its cards: JH JS); the standard bot plays seat 1 from now on"
    ) in out
    assert "seat 1 (opponent, standard) plays" in out.lower()
    assert "Match over after" in out


def test_an_exception_and_every_wrong_answer_let_the_match_go_on() -> None:
    for cls, what in [
        ("Raises", "raised ZeroDivisionError: division by zero"),
        ("ReturnsNone", "returned None (NoneType), not one of its cards"),
        ("ReturnsNumpy", "(tests.bots.misbehaving.Int64), not a plain int"),
        ("ReturnsTrue", "returned True (bool)"),
    ]:
        code, out = _play(f"{M}:{cls}")
        assert code == 0, out
        assert "Traceback" not in out
        lines = [x for x in out.splitlines() if x.startswith("pishti: bot")]
        assert len(lines) == 1, out
        assert f"pishti: bot '{M}:{cls}' at seat 1, match seed 5, deck 1: " in lines[0]
        assert what in lines[0]
        assert lines[0].endswith("; the standard bot plays seat 1 from now on")
        assert "Match over after" in out


def test_a_hung_move_is_played_by_the_standard_bot() -> None:
    code, out = _play(f"{M}:Hangs", "--move-time", "0.2")
    assert code == 0, out
    lines = [x for x in out.splitlines() if x.startswith("pishti: bot")]
    assert lines == [
        f"pishti: bot '{M}:Hangs' at seat 1, match seed 5, deck 1: took longer than 0.2 s "
        "and was stopped; the standard bot plays this move"
    ]
    assert "Match over after" in out


def test_a_plugin_that_cannot_be_built_is_refused_in_one_line() -> None:
    code, out = _play(f"{M}:NoSeed")
    assert code == 2
    assert out.count("\n") == 1
    assert "could not be built as NoSeed(seed): TypeError" in out


def _read_for(fd: int, seconds: float) -> bytes:
    import select
    import time

    out = b""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
    return out


@contextlib.contextmanager
def _pishti_on_a_terminal(*args: str) -> Iterator[tuple[int, list[int]]]:
    """Run ``pishti ARGS`` on a pty; yield its terminal's descriptor and a list that
    gets the exit status once it has ended (killed if the block fails)."""
    pishti = os.path.join(os.path.dirname(sys.executable), "pishti")
    pid, fd = pty.fork()
    if pid == 0:  # the child: pishti on a terminal
        os.execv(pishti, [pishti, *args])
    status: list[int] = []
    try:
        yield fd, status
    except BaseException:
        os.kill(pid, signal.SIGKILL)
        raise
    finally:
        _, raw = os.waitpid(pid, 0)
        os.close(fd)
        status.append(os.waitstatus_to_exitcode(raw))


def test_a_key_pressed_while_a_bot_thinks_is_not_echoed_into_the_table() -> None:
    args = ["play", "--players", "2", "--target", "51", "--seed", "1", "--move-time", "1"]
    with _pishti_on_a_terminal(*args, "--bots", f"{M}:Hangs") as (fd, status):
        first = _read_for(fd, 10)
        assert first.endswith(b"Card to play (1-4, q to leave): "), first[-200:]
        os.write(fd, b"1")
        # The bot's second move hangs for its second of time: a key pressed meanwhile.
        thinking = _read_for(fd, 0.3)
        os.write(fd, b"z")
        thinking += _read_for(fd, 3)
        assert b"took longer than 1 s and was stopped" in thinking
        assert thinking.endswith(b"Card to play (1-3, q to leave): "), thinking[-200:]
        assert b"z" not in thinking
        os.write(fd, b"q")
        assert b"you left the match (seed 1)" in _read_for(fd, 5)
    assert status == [1]


def test_a_bot_slow_on_its_last_card_still_sees_the_whole_match() -> None:
    from tests.bots.misbehaving import SlowLast

    SlowLast.LOG.clear()
    code, out = _play(f"{M}:SlowLast", "--move-time", "0.2")
    assert code == 0, out
    assert "took longer than 0.2 s and was stopped; the standard bot plays this move" in out
    decks = {deck for _, deck in SlowLast.LOG}
    for deck in decks:
        assert [k for k, d in SlowLast.LOG if d == deck].count("CardPlayed") == 48
    assert [k for k, _ in SlowLast.LOG].count("DeckCounted") == len(decks)
    assert SlowLast.LOG[-1][0] == "MatchOver"


def test_ctrl_c_on_a_terminal_ends_the_line_and_says_the_seed() -> None:
    args = ["play", "--players", "2", "--target", "51", "--seed", "1"]
    with _pishti_on_a_terminal(*args) as (fd, status):
        first = _read_for(fd, 10)
        assert first.endswith(b"Card to play (1-4, q to leave): "), first[-200:]
        os.write(fd, b"\x03")  # Ctrl-C, read as a key in the prompt's raw mode
        said = _read_for(fd, 5)
        assert said == b"\r\npishti: you stopped the match with Ctrl-C (seed 1)\r\n", said
    assert status == [130]


@pytest.mark.parametrize("value", ["-1", "nan", "inf"])
@pytest.mark.parametrize("command", [["play"], ["arena", "standard", "novice", "--matches", "1"]])
def test_a_move_time_that_is_not_finite_seconds_is_refused(command: list[str], value: str) -> None:
    # Found by a new user: `--move-time nan` was taken, and the arena then printed
    # "A - B points per deck: -14.67 [-inf, inf]".
    result = CliRunner().invoke(app, [*command, "--move-time", value], input="q\n")
    assert result.exit_code == 2, result.output
    assert result.stderr == "pishti: --move-time must be 0 (no limit) or positive, finite seconds\n"
