"""``pishti verify`` (R11.9): a record dealt from its seeds checks out; any change is named."""

from __future__ import annotations

import copy
import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from pishti.cli import app
from pishti.engine.fair import FairSeeds, fair_match
from pishti.records import dumps_record, loads_record, match_record, replay
from pishti.records.verify import NotVerifiable, verify_record

runner = CliRunner()
SERVER = bytes(range(32))
SEATS = tuple(bytes([0x11 * (i + 1)]) * 16 for i in range(4))


def _record(players: int = 4, target: int = 101, seed: int = 3) -> dict[str, Any]:
    seeds = FairSeeds(SERVER, SEATS[:players], 2)
    match = fair_match(players, target, seeds)
    rng = random.Random(seed)
    while not match.finished:
        match.play(rng.choice(match.legal_cards()))
    data: dict[str, Any] = json.loads(dumps_record(match_record(match, seeds)))
    return data


RECORD = _record()


def _verify(tmp_path: Path, data: dict[str, Any]) -> tuple[int, list[str], str]:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(data))
    result = runner.invoke(app, ["verify", str(path)])
    return result.exit_code, result.stdout.splitlines(), result.stderr


def test_the_record_carries_the_seeds() -> None:  # R11.9
    fair = RECORD["fair"]
    assert fair == {
        "match": 2,
        "server_seed": SERVER.hex(),
        "commitment": "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd",
        "seat_seeds": [s.hex() for s in SEATS],
    }
    assert loads_record(json.dumps(RECORD)).as_json() == RECORD  # read back unchanged
    assert len(RECORD["decks"]) >= 4


@pytest.mark.parametrize(("players", "target"), [(4, 101), (2, 51)])
def test_verify_accepts_a_fair_record(tmp_path: Path, players: int, target: int) -> None:
    data = RECORD if players == 4 else _record(2, 51)
    code, lines, _ = _verify(tmp_path, data)
    assert code == 0
    n = len(data["decks"])
    assert lines[0] == (
        "commitment: ok: 630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd "
        "is the SHA-256 of the server seed"
    )
    assert lines[1].startswith("first dealer: ok: seat ")
    assert [line.split(":")[0] for line in lines[2 : 2 + n]] == [
        f"deck {k}" for k in range(1, n + 1)
    ]
    assert all(": ok: " in line for line in lines[: 2 + n])
    assert lines[-1] == f"verified: match 2, {n} decks dealt from the published seeds (R11)"


def _swap_between_hands(data: dict[str, Any], deck: int) -> dict[str, Any]:
    """Swap the first card of seat 0 and seat 1 in deal 2 of ``deck`` (still a valid deal)
    and swap them in the plays too, so the record still replays."""
    out = copy.deepcopy(data)
    d = out["decks"][deck]
    a, b = d["deals"][1][0][0], d["deals"][1][1][0]
    d["deals"][1][0][0], d["deals"][1][1][0] = b, a
    d["plays"] = [b if c == a else a if c == b else c for c in d["plays"]]
    return out


def test_one_card_swapped(tmp_path: Path) -> None:
    data = _swap_between_hands(RECORD, 1)
    replay(loads_record(json.dumps(data)))  # still a legal record
    code, lines, err = _verify(tmp_path, data)
    assert code == 1
    bad = [line for line in lines if "DIFFERS" in line]
    a, b = RECORD["decks"][1]["deals"][1][0][0], RECORD["decks"][1]["deals"][1][1][0]
    seat0 = " ".join(RECORD["decks"][1]["deals"][1][0])
    seat1 = " ".join(RECORD["decks"][1]["deals"][1][1])
    assert bad == [
        f"deck 2: DIFFERS: deal 2, seat 0: the record has {seat0.replace(a, b, 1)}, "
        f"the seeds deal {seat0} (the seeds deal {b} to seat 1); "
        f"seat 1: the record has {seat1.replace(b, a, 1)}, the seeds deal {seat1} "
        f"(the seeds deal {a} to seat 0)"
    ]
    assert err.strip() == f"NOT VERIFIED: 1 of {len(RECORD['decks']) + 2} checks differ"


def test_cards_swapped_between_hands_that_no_longer_replay(tmp_path: Path) -> None:
    """The hands' cards swapped, the plays left as they were: the deals are still checked
    deck by deck, the deck that differs is named, then why the plays do not replay."""
    data = copy.deepcopy(RECORD)
    deal = data["decks"][1]["deals"][1]
    a, b = deal[0][0], deal[1][0]
    deal[0][0], deal[1][0] = b, a
    code, lines, err = _verify(tmp_path, data)
    assert code == 1
    assert len(lines) == 2 + len(RECORD["decks"])
    bad = [line for line in lines if "DIFFERS" in line]
    assert len(bad) == 1
    assert bad[0].startswith("deck 2: DIFFERS: deal 2, seat 0: the record has ")
    assert f"(the seeds deal {b} to seat 1); seat 1: " in bad[0]
    assert bad[0].endswith(f"(the seeds deal {a} to seat 0)")
    n = len(RECORD["decks"]) + 2
    assert err.splitlines() == [
        f"NOT VERIFIED: 1 of {n} checks differ",
        f"NOT VERIFIED: the record does not replay: deck 2, play 18: seat 0 does not hold {a}",
    ]


def test_wrong_server_seed(tmp_path: Path) -> None:
    data = copy.deepcopy(RECORD)
    data["fair"]["server_seed"] = "ff" + SERVER.hex()[2:]
    code, lines, _ = _verify(tmp_path, data)
    assert code == 1
    wrong = bytes.fromhex(data["fair"]["server_seed"])
    assert lines[0] == (
        f"commitment: DIFFERS: the SHA-256 of the server seed is "
        f"{hashlib.sha256(wrong).hexdigest()}, not the commitment {RECORD['fair']['commitment']}"
    )
    assert sum("DIFFERS" in line for line in lines) >= 2  # the decks differ too


def test_wrong_commitment(tmp_path: Path) -> None:
    data = copy.deepcopy(RECORD)
    data["fair"]["commitment"] = "0" * 64
    code, lines, _ = _verify(tmp_path, data)
    assert code == 1
    assert [line for line in lines if "DIFFERS" in line] == [
        f"commitment: DIFFERS: the SHA-256 of the server seed is {RECORD['fair']['commitment']}, "
        f"not the commitment {'0' * 64}"
    ]


def test_reordered_seat_seeds(tmp_path: Path) -> None:
    data = copy.deepcopy(RECORD)
    s = data["fair"]["seat_seeds"]
    s[0], s[1] = s[1], s[0]
    code, lines, _ = _verify(tmp_path, data)
    assert code == 1
    assert lines[0].startswith("commitment: ok")
    first_bad = next(line for line in lines if "DIFFERS" in line)
    assert first_bad.startswith(
        ("first dealer: DIFFERS: ", "deck 1: DIFFERS: middle: the record has")
    )
    assert all("DIFFERS" in line for line in lines[2:] if line.startswith("deck "))


def test_a_record_without_seeds_replays_but_cannot_be_verified(tmp_path: Path) -> None:
    data = copy.deepcopy(RECORD)
    del data["fair"]
    replay(loads_record(json.dumps(data)))
    with pytest.raises(NotVerifiable):
        verify_record(loads_record(json.dumps(data)))
    code, lines, err = _verify(tmp_path, data)
    assert code == 1
    assert lines == []
    # "cannot be verified" once: the line said it twice (a new user).
    assert err == (
        f"pishti: {tmp_path / 'record.json'}: the record holds no seeds "
        '(no "fair" object): its deals cannot be verified\n'
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"server_seed": "abc"}, "fair: server_seed must be 32 bytes in hex, not 'abc'"),
        ({"seat_seeds": ["00" * 16]}, "fair: seat_seeds must be a list of 4 seeds"),
        ({"commitment": 5}, "fair: commitment must be text, not 5"),
        ({"match": 0}, "fair: match must be a number from 1, not 0"),
    ],
)
def test_broken_fair_objects_are_refused(
    tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    data = copy.deepcopy(RECORD)
    data["fair"].update(change)
    code, lines, err = _verify(tmp_path, data)
    assert (code, lines) == (1, [])
    assert err.strip() == f"pishti: {tmp_path / 'record.json'}: {message}"


def test_the_shared_records_replay_unchanged() -> None:
    """Records of R10 without seeds still read and replay (the examples of tests/records)."""
    for path in sorted(Path(__file__).parent.glob("*.json")):
        if path.name.endswith(".expected.json"):
            continue
        record = loads_record(path.read_text())
        assert record.fair is None
        replay(record)
