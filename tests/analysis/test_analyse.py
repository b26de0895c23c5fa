"""``pishti analyse``: the analysis of a record's plays against the expert (R10, R7.7)."""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pishti.analysis import analyse_deck, analyse_record, card_values
from pishti.cli import app
from pishti.engine import card_text, parse_card, seat_view
from pishti.records import MatchRecord, read_record, replay, write_record
from pishti.records.record import DeckRecord
from tests.layouts import hidden_twin

RECORDS = Path(__file__).resolve().parents[1] / "records"
runner = CliRunner()


def _cut(record: MatchRecord, plays: int) -> MatchRecord:
    """The record's first deck, stopped after ``plays`` plays."""
    first = dataclasses.replace(record.decks[0], plays=record.decks[0].plays[:plays])
    return MatchRecord(record.players, record.target, (first,))


def test_the_json_form_on_a_shared_record(tmp_path: Path) -> None:
    path = RECORDS / "two_player_with_pishti.json"
    record = read_record(path)
    out = tmp_path / "analysis.json"
    result = runner.invoke(
        app,
        [
            "analyse",
            str(path),
            "--json",
            "--samples",
            "2",
            "--expert-samples",
            "1",
            "--jobs",
            "2",
            "--seed",
            "5",
            "-o",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    analysis = json.loads(result.stdout)
    assert json.loads(out.read_text()) == analysis
    assert analysis["format"] == 1
    assert (analysis["players"], analysis["target"]) == (2, record.target)
    assert (analysis["samples"], analysis["expert_samples"], analysis["seed"]) == (2, 1, 5)
    assert [d["deck"] for d in analysis["decks"]] == list(range(1, len(record.decks) + 1))
    for deck_record, deck in zip(record.decks, analysis["decks"], strict=True):
        assert [p["card"] for p in deck["plays"]] == [card_text(c) for c in deck_record.plays]
        for number, p in enumerate(deck["plays"], start=1):
            assert p["play"] == number
            cards = [c["card"] for c in p["cards"]]
            assert p["card"] in cards and p["expert"] in cards and p["best"] == cards[0]
            assert p["cards"][0]["loss"] == 0.0
            assert all(c["loss"] >= 0 for c in p["cards"])
            mine = next(c for c in p["cards"] if c["card"] == p["card"])
            assert mine["loss"] == p["loss"]
            assert p["mark"] in (None, "inaccuracy", "mistake")
            if p["mark"] == "mistake":
                assert p["loss"] >= analysis["thresholds"]["mistake"]
            if p["forced"]:  # one distinct card: nothing to choose, nothing marked
                assert {c["expected"] for c in p["cards"]} == {0.0} and p["mark"] is None
                assert p["matches_expert"]
    plays = sum(len(d.plays) for d in record.decks)
    seats = analysis["seats"]
    assert [s["seat"] for s in seats] == [0, 1]
    assert sum(s["plays"] for s in seats) == plays
    for s in seats:
        assert s["matches_expert"] <= s["choices"] <= s["plays"]
        assert s["points_lost_per_deck"] == round(s["points_lost"] / len(record.decks), 3)


def test_an_analysis_is_reproducible_from_its_seed_whatever_the_workers() -> None:
    record = _cut(read_record(RECORDS / "tie_26.json"), 20)
    one = analyse_record(record, samples=4, seed=3, jobs=1, expert_samples=4)
    again = analyse_record(record, samples=4, seed=3, jobs=1, expert_samples=4)
    other = analyse_record(record, samples=4, seed=4, jobs=1, expert_samples=4)
    assert one == again
    assert one["decks"] != other["decks"]
    # Two decks, in two worker processes, as in one.
    two_decks = read_record(RECORDS / "tie_26.json")
    two_decks = MatchRecord(
        two_decks.players,
        two_decks.target,
        (
            two_decks.decks[0],
            dataclasses.replace(two_decks.decks[1], plays=two_decks.decks[1].plays[:8]),
        ),
    )
    seen: list[int] = []
    pooled = analyse_record(
        two_decks, samples=2, seed=1, jobs=2, expert_samples=2, progress=seen.append
    )
    alone = analyse_record(two_decks, samples=2, seed=1, jobs=1, expert_samples=2)
    assert pooled == alone
    assert seen == [48, 8]


def test_hidden_cards_do_not_move_the_analysis_of_a_play() -> None:
    """Cards the seat could not see at a play (other hands, the stock, face-down
    cards its team had not taken) are shuffled: that play's analysis is the same."""
    record = read_record(RECORDS / "tie_26.json")
    rng = random.Random(11)
    differing = 0
    for number in (6, 19, 30):
        match = replay(_cut(record, number - 1))
        seat = match.to_play
        assert seat is not None
        twin = hidden_twin(match, seat, rng)
        assert seat_view(match, seat) == seat_view(twin, seat)
        deck = twin.deck
        twin_record = MatchRecord(
            record.players,
            record.target,
            (DeckRecord(deck.dealer, deck.middle, deck.deals, record.decks[0].plays[:number]),),
        )
        differing += twin_record.decks[0].deals != record.decks[0].deals
        original = analyse_deck(_cut(record, number), 0, samples=16, seed=2, expert_samples=16)
        changed = analyse_deck(twin_record, 0, samples=16, seed=2, expert_samples=16)
        assert original[-1] == changed[-1]
        assert original[-1]["seat"] == seat
    assert differing == 3


def test_card_values_at_a_position() -> None:
    record = _cut(read_record(RECORDS / "tie_26.json"), 5)
    match = replay(record)
    seat = match.to_play
    assert seat is not None
    view = seat_view(match, seat)
    values = card_values(view, "x", samples=32)
    assert sorted(v.card for v in values) == sorted(view.hand)
    assert values[0].loss == 0.0 and values[0].se == 0.0
    assert all(v.loss >= 0 for v in values)
    assert values == card_values(view, "x", samples=32)
    with pytest.raises(ValueError, match="two samples"):
        card_values(view, "x", samples=1)
    other = seat_view(match, (seat + 1) % record.players)
    with pytest.raises(ValueError, match="no card to play"):
        card_values(other, "x")


def test_a_broken_record_is_refused_in_one_line(tmp_path: Path) -> None:
    record = read_record(RECORDS / "tie_26.json")
    first = record.decks[0]
    broken = dataclasses.replace(first, plays=(parse_card("AS"), *first.plays[1:5]))
    path = tmp_path / "broken.json"
    write_record(MatchRecord(record.players, record.target, (broken,)), path)
    result = runner.invoke(app, ["analyse", str(path)])
    assert result.exit_code == 1
    assert "deck 1" in result.output and "play 1" in result.output
    with pytest.raises(ValueError, match="two samples"):
        analyse_record(record, samples=1)
    with pytest.raises(ValueError, match="one job"):
        analyse_record(record, jobs=0)
    with pytest.raises(IndexError):
        analyse_deck(record, 99)


def test_the_terminal_summary(tmp_path: Path) -> None:
    record = _cut(read_record(RECORDS / "tie_26.json"), 24)
    path = tmp_path / "r.json"
    write_record(record, path)
    result = runner.invoke(
        app, ["analyse", str(path), "--samples", "8", "--expert-samples", "4", "--jobs", "1"]
    )
    assert result.exit_code == 0, result.output
    assert "Against the expert (8 sampled decks a play)" in result.output
    assert "Marked plays" in result.output


def test_an_output_file_that_cannot_be_written_is_refused_before_the_analysis(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found by a new user: `-o /nonexist/a.json` and `-o /tmp` ended in a traceback,
    # after the whole analysis had run.
    def no_analysis(*args: object, **kwargs: object) -> None:
        raise AssertionError("the analysis started")

    monkeypatch.setattr("pishti.cli.analyse.analyse_record", no_analysis)
    record = str(RECORDS / "two_player_with_pishti.json")
    loop = tmp_path / "loop"
    loop.symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(loop)
    for output, said in (
        (tmp_path / "none" / "a.json", f"the folder {tmp_path / 'none'} does not exist"),
        (tmp_path, "a folder; give a file name"),
        (loop, "Too many levels of symbolic links"),
    ):
        result = runner.invoke(app, ["analyse", record, "-o", str(output)])
        assert result.exit_code == 2, result.output
        assert result.stderr == f"pishti: --output {output}: {said}\n"
    assert loop.is_symlink()


def test_the_output_file_is_written_through_a_symlink(tmp_path: Path) -> None:
    path = RECORDS / "two_player_with_pishti.json"
    record = _cut(read_record(path), 3)
    cut = tmp_path / "cut.json"
    write_record(record, cut)
    (tmp_path / "out").mkdir()
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "out" / "analysis.json")
    args = ["analyse", str(cut), "--json", "--samples", "2", "--expert-samples", "1"]
    result = runner.invoke(app, [*args, "--jobs", "1", "-o", str(link)])
    assert result.exit_code == 0, result.output
    assert link.is_symlink()
    assert json.loads((tmp_path / "out" / "analysis.json").read_text()) == json.loads(result.stdout)


def test_the_tables_at_two_players_and_80_columns() -> None:
    # Found by a new user: at two players a "team" column repeated the seat, the
    # head "inaccuracies" showed as "inaccur…" at 80 columns, and cards were
    # written "TD" where play and replay show "10♦".
    path = str(RECORDS / "two_player_with_pishti.json")
    args = ["analyse", path, "--samples", "2", "--expert-samples", "1", "--jobs", "1"]
    result = runner.invoke(app, args, env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    heads = [cell.strip() for cell in lines[4].split("┃")[1:-1]]
    assert heads == ["seat", "choices", "expert", "card", "deck", "inaccuracies", "mistakes"]
    assert max(len(line) for line in lines) <= 80
    marked = lines[lines.index(next(x for x in lines if "Marked plays" in x)) + 4 :]
    first = [cell.strip() for cell in marked[0].split("│")[1:-1]]
    assert first == ["1", "10", "0", "K♦", "8♦", "K♦", "10.00", "mistake"]
    assert "│ 3    │ 1    │ 1    │ 10♦    │ 9♥   │ 10♦    │ 12.00       │ mistake │" in lines


def test_the_output_may_not_be_the_record_itself(tmp_path: Path) -> None:
    # Found by a new user: `analyse self.json -o self.json` wrote the analysis over
    # the record.
    path = tmp_path / "self.json"
    write_record(_cut(read_record(RECORDS / "two_player_with_pishti.json"), 3), path)
    before = path.read_bytes()
    link = tmp_path / "link.json"
    link.symlink_to(path)
    for output in (path, link):
        result = runner.invoke(app, ["analyse", str(path), "-o", str(output)])
        assert result.exit_code == 2, result.output
        assert result.stderr == (
            f"pishti: --output {output}: the record being analysed; give another file\n"
        )
    assert path.read_bytes() == before
