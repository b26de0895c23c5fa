"""``pishti verify FILE``: check that a record's deals come from its published seeds (R11)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from pishti.cli.app import app, fail
from pishti.records import RecordError, read_record, replay
from pishti.records.verify import NotVerifiable, verify_record


@app.command("verify")
def verify_command(
    file: Annotated[Path, typer.Argument(help="A match record (R10 JSON) with its seeds (R11).")],
) -> None:
    """Check a match record's deals against its seeds (R11.9).

    Prints one line for the commitment, one for the first dealer and one per
    deck: "ok", or "DIFFERS" and exactly where.  The deals are checked
    even when the plays do not replay (cards moved between hands make a play
    come from a hand that does not hold it): the deck whose deal differs is
    named, then the replay's error.  Exits with status 0 when everything
    agrees and the record replays, 1 when something differs, when the record
    is broken or illegal (R10), or when it holds no seeds and cannot be verified.
    """
    try:
        record = read_record(file)
    except RecordError as exc:
        raise fail(f"{file}: {exc}") from None
    try:
        replay(record)
        replayed: RecordError | None = None
    except RecordError as exc:
        replayed = exc
    try:
        checks = verify_record(record)
    except NotVerifiable as exc:
        if replayed is not None:
            raise fail(f"{file}: {replayed}") from None
        raise fail(f"{file}: {exc}") from None
    for check in checks:
        typer.echo(check.line())
    bad = [c for c in checks if not c.ok]
    assert record.fair is not None  # verify_record raised otherwise
    if bad:
        typer.echo(f"NOT VERIFIED: {len(bad)} of {len(checks)} checks differ", err=True)
    if replayed is not None:
        typer.echo(f"NOT VERIFIED: the record does not replay: {replayed}", err=True)
    if bad or replayed is not None:
        raise typer.Exit(1)
    typer.echo(
        f"verified: match {record.fair.match}, {len(record.decks)} decks dealt from the "
        "published seeds (R11)"
    )
