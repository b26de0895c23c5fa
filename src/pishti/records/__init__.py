"""Match records (R10): writing, reading, checking and replaying them."""

from pishti.records.errors import RecordError
from pishti.records.record import (
    DeckRecord,
    MatchRecord,
    dumps_record,
    loads_record,
    match_record,
    parse_record,
    read_record,
    write_record,
)
from pishti.records.replay import deck_results, replay, replay_json

__all__ = [
    "DeckRecord",
    "MatchRecord",
    "RecordError",
    "deck_results",
    "dumps_record",
    "loads_record",
    "match_record",
    "parse_record",
    "read_record",
    "replay",
    "replay_json",
    "write_record",
]
