"""Ratings of people and bot levels on one scale, updated after every finished match.

The method is OpenSkill's Plackett-Luce model (the ``openskill`` library: a
Bayesian rating for teams, Weng and Lin 2011), with its defaults: a new player
starts at ``mu`` 25 and ``sigma`` 25/3.  A finished match is one game between
its two teams (R1.3, R1.4): the winning team ranks first, a draw at the deck cap
(R6.4) ranks both level.  Each person with a browser identity is one player;
each bot level (``bot:standard``, ``bot:expert`` ...) is one player for every
seat it takes, so that people and levels are compared on one scale.  A person
without an identity plays at the default rating and keeps no rating.  The
number shown (and sorted on) is the conservative ``mu - 3 sigma`` (OpenSkill's
``ordinal``).
"""

from __future__ import annotations

from dataclasses import dataclass

from openskill.models import PlackettLuce

_MODEL = PlackettLuce()
MU = _MODEL.mu
"""A new player's mean skill."""
SIGMA = _MODEL.sigma
"""A new player's uncertainty."""


@dataclass(frozen=True, slots=True)
class Rating:
    """One player's rating: mean ``mu``, uncertainty ``sigma`` (skill points) and the
    number of rated matches."""

    mu: float = MU
    sigma: float = SIGMA
    matches: int = 0

    @property
    def shown(self) -> float:
        """The conservative rating shown and ranked on: ``mu - 3 sigma``."""
        return self.mu - 3 * self.sigma


def rate_match(
    teams: tuple[list[Rating], list[Rating]], winner: int | None
) -> tuple[list[Rating], list[Rating]]:
    """The ratings after one match between ``teams[0]`` and ``teams[1]``.

    Args:
        teams: the ratings of each team's seats before the match (R1.3; one seat
            per team with two players, R1.4).
        winner: 0 or 1, or None for a draw (R6.4).
    Returns:
        the new ratings, in the same places, each with one more match.
    Raises:
        ValueError: a team without a seat, or a winner that is not 0, 1 or None.
    """
    if not teams[0] or not teams[1]:
        raise ValueError("each team needs a seat")
    if winner not in (0, 1, None):
        raise ValueError(f"winner must be 0, 1 or None, not {winner!r}")
    ranks = [0.0, 0.0] if winner is None else ([0.0, 1.0] if winner == 0 else [1.0, 0.0])
    rated = _MODEL.rate(
        [[_MODEL.rating(mu=r.mu, sigma=r.sigma) for r in team] for team in teams], ranks=ranks
    )
    out = tuple(
        [
            Rating(new.mu, new.sigma, old.matches + 1)
            for new, old in zip(rated[i], teams[i], strict=True)
        ]
        for i in (0, 1)
    )
    return out[0], out[1]
