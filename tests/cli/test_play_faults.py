"""``pishti play`` with a plug-in bot that misbehaves: one line, and the match goes on."""

from __future__ import annotations

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
