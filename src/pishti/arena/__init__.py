"""The arena: duplicate matches between two bots, and the statistics that compare them."""

from pishti.arena.duplicate import GameResult, PairResult, play_game, play_pair, run_duplicate
from pishti.arena.stats import Estimate, SideReport, summarize

__all__ = [
    "Estimate",
    "GameResult",
    "PairResult",
    "SideReport",
    "play_game",
    "play_pair",
    "run_duplicate",
    "summarize",
]
