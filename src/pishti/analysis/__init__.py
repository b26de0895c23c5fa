"""After the match: every play of a record weighed against the expert bot.

:mod:`pishti.analysis.position` evaluates the legal cards of one position from
one seat's view (R7.7); :mod:`pishti.analysis.match` analyses a whole record
(R10) into the JSON form of docs/bots.md.
"""

from pishti.analysis.match import analyse_deck, analyse_record, analysis_json, total_plays
from pishti.analysis.position import CardValue, card_values

__all__ = [
    "CardValue",
    "analyse_deck",
    "analyse_record",
    "analysis_json",
    "card_values",
    "total_plays",
]
