"""Arena statistics: estimates with 95% confidence intervals over duplicate matches.

The two games of a duplicate match share their decks, so they are not
independent; the duplicate match (the pair) is the unit of every interval.

- Match win rate: the mean over pairs of a side's score (a win 1, a draw at
  the deck cap 1/2, a loss 0, averaged over the pair's two games), with a
  Wilson score interval whose sample size is the pairs' effective sample size
  ``p (1 - p) / (s^2 / n)`` (the design effect of pairing; every game counts
  when all pairs score alike), so it stays within [0, 1].
- Points and pishtis per deck: a ratio (total over every game / decks over
  every game), with the delta-method interval of a ratio over pairs (the
  residuals ``x_i - R d_i`` give the spread), clipped at 0 for counts.

One duplicate match gives no spread: the margins and the means then have no
interval (``low`` is ``-inf``, or 0 for counts, and ``high`` is ``inf``), not
a zero-width one that would look certain.  The win rate keeps its Wilson
interval, on the pair's two games.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pishti.arena.duplicate import PairResult

Z95 = 1.959964
"""The normal quantile of a two-sided 95% interval."""


@dataclass(frozen=True, slots=True)
class Estimate:
    """A value with its 95% confidence interval ``[low, high]``; a bound is
    infinite when the data give none (one duplicate match, module doc)."""

    value: float
    low: float
    high: float

    def as_json(self, digits: int = 4) -> dict[str, float | None]:
        """``{"value", "low", "high"}`` rounded to ``digits`` decimals; an infinite
        bound is ``None`` (JSON's null: JSON has no infinity)."""
        return {
            "value": round(self.value, digits),
            "low": _bound(self.low, digits),
            "high": _bound(self.high, digits),
        }

    def text(self, digits: int = 2) -> str:
        """E.g. ``"5.21 [4.80, 5.62]"``, or ``"5.21 [-inf, inf]"`` without an interval."""
        return f"{self.value:.{digits}f} [{self.low:.{digits}f}, {self.high:.{digits}f}]"


def _bound(bound: float, digits: int) -> float | None:
    return round(bound, digits) if math.isfinite(bound) else None


def no_interval(value: float, floor: float | None = None) -> Estimate:
    """``value`` with no interval: ``[-inf, inf]``, or ``[floor, inf]`` (module doc)."""
    return Estimate(value, -math.inf if floor is None else floor, math.inf)


def mean_estimate(values: Sequence[float]) -> Estimate:
    """The mean of ``values`` with a normal-approximation 95% interval (none for
    a single value: ``[-inf, inf]``).

    Raises:
        ValueError: ``values`` is empty.
    """
    if not values:
        raise ValueError("no values")
    mean = statistics.fmean(values)
    if len(values) < 2:
        return no_interval(mean)
    half = Z95 * statistics.stdev(values) / math.sqrt(len(values))
    return Estimate(mean, mean - half, mean + half)


def rate_estimate(scores: Sequence[float], games_per_unit: int = 2) -> Estimate:
    """The mean of ``scores`` (each from 0 to 1, one per independent unit) with
    a Wilson 95% interval on the units' effective sample size (module doc).

    Raises:
        ValueError: ``scores`` is empty.
    """
    if not scores:
        raise ValueError("no scores")
    n = len(scores)
    p = statistics.fmean(scores)
    variance = statistics.variance(scores) if n > 1 else 0.0
    if variance > 0 and 0 < p < 1:
        n_eff = p * (1 - p) / (variance / n)
    else:
        n_eff = float(n * games_per_unit)
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n_eff)) / (1 + z2 / n_eff)
    half = Z95 * math.sqrt(p * (1 - p) / n_eff + z2 / (4 * n_eff * n_eff)) / (1 + z2 / n_eff)
    return Estimate(p, max(0.0, centre - half), min(1.0, centre + half))


def ratio_estimate(
    numerators: Sequence[float], denominators: Sequence[float], *, floor: float | None = None
) -> Estimate:
    """``sum(numerators) / sum(denominators)`` with a delta-method 95% interval.

    Each ``(numerator, denominator)`` is one independent unit (a duplicate
    match); ``floor``, when given, clips the interval's low end (0 for counts).
    A single unit gives no interval: ``[-inf, inf]`` (``[floor, inf]``).

    Raises:
        ValueError: no units, or the denominators sum to 0.
    """
    n = len(numerators)
    if n == 0 or n != len(denominators):
        raise ValueError("numerators and denominators must be non-empty and of equal length")
    total = sum(denominators)
    if total <= 0:
        raise ValueError("the denominators sum to 0")
    ratio = sum(numerators) / total
    if n < 2:
        return no_interval(ratio, floor)
    residuals = [x - ratio * d for x, d in zip(numerators, denominators, strict=True)]
    mean_d = total / n
    half = Z95 * statistics.stdev(residuals) / (mean_d * math.sqrt(n))
    low = ratio - half if floor is None else max(floor, ratio - half)
    return Estimate(ratio, low, ratio + half)


def percentile(values: Sequence[float], share: float) -> float:
    """The nearest-rank percentile: the least value that at least ``share``
    (0 to 1) of ``values`` do not exceed; 0.0 when ``values`` is empty.

    E.g. ``percentile([4, 1, 3, 2], 0.95) == 4`` and ``percentile([4, 1, 3, 2], 0.5) == 2``.
    """
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, math.ceil(share * len(ordered)))
    return ordered[rank - 1]


@dataclass(frozen=True, slots=True)
class SideReport:
    """One side's figures over a run (see the module doc for the intervals).

    Attributes:
        spec: the bot spec.  win_rate: match win rate, 0..1.
        points_per_deck: match points per deck played (R5.2).
        pishtis_per_deck: pishtis of both kinds (R4.1, R4.2) per deck played.
        jack_pishtis_per_deck: jack pishtis alone per deck played.
        median_move_ms: the median wall-clock time per move, in milliseconds.
        median_move_cpu_ms: the median CPU time per move (one core), in milliseconds.
        p95_move_ms, p95_move_cpu_ms: the 95th percentile of the same
            (nearest rank: 95% of the moves took at most this long), in milliseconds.
        moves: moves timed.
    """

    spec: str
    win_rate: Estimate
    points_per_deck: Estimate
    pishtis_per_deck: Estimate
    jack_pishtis_per_deck: Estimate
    median_move_ms: float
    median_move_cpu_ms: float
    p95_move_ms: float
    p95_move_cpu_ms: float
    moves: int

    def as_json(self) -> dict[str, Any]:
        """The report as a JSON-ready dict."""
        return {
            "bot": self.spec,
            "win_rate": self.win_rate.as_json(),
            "points_per_deck": self.points_per_deck.as_json(),
            "pishtis_per_deck": self.pishtis_per_deck.as_json(),
            "jack_pishtis_per_deck": self.jack_pishtis_per_deck.as_json(),
            "median_move_ms": round(self.median_move_ms, 4),
            "median_move_cpu_ms": round(self.median_move_cpu_ms, 4),
            "p95_move_ms": round(self.p95_move_ms, 4),
            "p95_move_cpu_ms": round(self.p95_move_cpu_ms, 4),
            "moves": self.moves,
        }


def summarize(pairs: Sequence[PairResult], side_a: str, side_b: str) -> dict[str, Any]:
    """Summarize a run of duplicate matches.

    Returns:
        ``{"duplicate_matches", "games", "decks", "draws", "sides": [SideReport A,
        SideReport B], "margin_per_deck": Estimate, "fallbacks": (a, b)}``, where
        ``margin_per_deck`` is A's points per deck less B's and ``fallbacks``
        counts each side's moves played by the standard bot after a plug-in
        ran over its time.
    Raises:
        ValueError: ``pairs`` is empty.
    """
    if not pairs:
        raise ValueError("no duplicate matches to summarize")
    decks = [float(sum(g.decks for g in p.games)) for p in pairs]
    sides = []
    for side, spec in enumerate((side_a, side_b)):
        scores = [sum(g.score for g in p.games) / 2 for p in pairs]
        if side == 1:
            scores = [1.0 - s for s in scores]
        points = [float(sum(g.points[side] for g in p.games)) for p in pairs]
        pishtis = [
            float(sum(g.pishtis[side] + g.jack_pishtis[side] for g in p.games)) for p in pairs
        ]
        jacks = [float(sum(g.jack_pishtis[side] for g in p.games)) for p in pairs]
        times = [t for p in pairs for g in p.games for t in g.times[side]]
        cpu_times = [t for p in pairs for g in p.games for t in g.cpu_times[side]]
        sides.append(
            SideReport(
                spec=spec,
                win_rate=rate_estimate(scores),
                points_per_deck=ratio_estimate(points, decks, floor=0.0),
                pishtis_per_deck=ratio_estimate(pishtis, decks, floor=0.0),
                jack_pishtis_per_deck=ratio_estimate(jacks, decks, floor=0.0),
                median_move_ms=1000 * statistics.median(times) if times else 0.0,
                median_move_cpu_ms=1000 * statistics.median(cpu_times) if cpu_times else 0.0,
                p95_move_ms=1000 * percentile(times, 0.95),
                p95_move_cpu_ms=1000 * percentile(cpu_times, 0.95),
                moves=len(times),
            )
        )
    margins = [float(sum(g.points[0] - g.points[1] for g in p.games)) for p in pairs]
    return {
        "duplicate_matches": len(pairs),
        "games": 2 * len(pairs),
        "decks": int(sum(decks)),
        "draws": sum(1 for p in pairs for g in p.games if g.score == 0.5),
        "sides": sides,
        "margin_per_deck": ratio_estimate(margins, decks),
        "fallbacks": (
            sum(g.fallbacks[0] for p in pairs for g in p.games),
            sum(g.fallbacks[1] for p in pairs for g in p.games),
        ),
    }


def paired_difference(pairs: Sequence[PairResult]) -> dict[str, Estimate]:
    """Side A less the reference bot C, paired on the same deals (``--compare``).

    Every pair must hold its :attr:`PairResult.reference` games.  Returns
    ``{"margin_per_deck": Estimate, "win_rate": Estimate}``: A's margin per
    deck over side B less C's margin per deck over side B (a difference of
    two ratios, with the delta-method interval over pairs, the two ratios'
    residuals taken together since they share the deals), and A's match win
    rate less C's (the mean of the pairs' differences, normal interval; over
    one pair none but the range a difference of rates can take, [-1, 1]).

    Raises:
        ValueError: no pairs, or a pair without reference games.
    """
    if not pairs:
        raise ValueError("no duplicate matches to compare")
    if any(p.reference is None for p in pairs):
        raise ValueError("a duplicate match has no reference games")
    rows = []
    for p in pairs:
        ref = p.reference
        assert ref is not None
        rows.append(
            (
                float(sum(g.points[0] - g.points[1] for g in p.games)),
                float(sum(g.decks for g in p.games)),
                float(sum(g.points[0] - g.points[1] for g in ref)),
                float(sum(g.decks for g in ref)),
                sum(g.score for g in p.games) / 2 - sum(g.score for g in ref) / 2,
            )
        )
    n = len(rows)
    deck_a = sum(r[1] for r in rows)
    deck_c = sum(r[3] for r in rows)
    ratio_a = sum(r[0] for r in rows) / deck_a
    ratio_c = sum(r[2] for r in rows) / deck_c
    value = ratio_a - ratio_c
    if n < 2:
        margin = no_interval(value)
    else:
        influence = [
            (m_a - ratio_a * d_a) / (deck_a / n) - (m_c - ratio_c * d_c) / (deck_c / n)
            for m_a, d_a, m_c, d_c, _ in rows
        ]
        half = Z95 * statistics.stdev(influence) / math.sqrt(n)
        margin = Estimate(value, value - half, value + half)
    win_rate = mean_estimate([r[4] for r in rows])
    if n < 2:
        win_rate = Estimate(win_rate.value, -1.0, 1.0)
    return {"margin_per_deck": margin, "win_rate": win_rate}
