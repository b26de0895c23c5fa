"""Arena statistics: exact values on small inputs."""

from __future__ import annotations

import math

import pytest

from pishti.arena.stats import (
    Z95,
    Estimate,
    mean_estimate,
    percentile,
    rate_estimate,
    ratio_estimate,
)


def test_mean_estimate_is_a_normal_interval() -> None:
    est = mean_estimate([1.0, 3.0])
    assert est.value == 2.0
    half = Z95 * math.sqrt(2.0) / math.sqrt(2.0)
    assert est.low == pytest.approx(2.0 - half)
    assert est.high == pytest.approx(2.0 + half)
    assert mean_estimate([4.0, 4.0]) == Estimate(4.0, 4.0, 4.0)  # no spread seen


def test_one_unit_gives_no_interval_not_a_zero_width_one() -> None:
    # One duplicate match printed "5.00 [5.00, 5.00]", as if the value were certain.
    one = mean_estimate([4.0])
    assert one == Estimate(4.0, -math.inf, math.inf)
    assert one.text() == "4.00 [-inf, inf]"
    assert one.as_json() == {"value": 4.0, "low": None, "high": None}
    assert ratio_estimate([3.0], [2.0]) == Estimate(1.5, -math.inf, math.inf)
    assert ratio_estimate([3.0], [2.0], floor=0.0) == Estimate(1.5, 0.0, math.inf)
    assert ratio_estimate([3.0], [2.0], floor=0.0).as_json() == {
        "value": 1.5,
        "low": 0.0,
        "high": None,
    }
    # The win rate keeps its Wilson interval on the pair's two games.
    rate = rate_estimate([1.0])
    assert rate.value == 1.0 and rate.high == 1.0
    assert rate.low == pytest.approx(2 / (2 + Z95 * Z95))


def test_ratio_estimate_uses_the_residuals_of_each_unit() -> None:
    est = ratio_estimate([2.0, 4.0], [1.0, 1.0])
    assert est.value == 3.0
    # residuals -1 and 1: stdev sqrt(2); mean denominator 1; n = 2
    assert est.high - est.value == pytest.approx(Z95)
    assert ratio_estimate([0.0, 0.0, 1.0], [5.0, 5.0, 5.0], floor=0.0).low == 0.0
    with pytest.raises(ValueError):
        ratio_estimate([1.0], [0.0])


def test_rate_estimate_is_a_wilson_interval_within_zero_and_one() -> None:
    est = rate_estimate([1.0, 1.0, 1.0])
    assert est.value == 1.0 and est.high == 1.0
    # All alike: every game counts, n = 6 games, p = 1: Wilson low = 6 / (6 + z^2).
    assert est.low == pytest.approx(6 / (6 + Z95 * Z95))
    mixed = rate_estimate([0.0, 0.5, 1.0, 0.5])
    assert mixed.value == 0.5
    assert 0.0 <= mixed.low < 0.5 < mixed.high <= 1.0
    assert mixed.high - 0.5 == pytest.approx(0.5 - mixed.low)


def test_the_paired_difference_of_two_margins_per_deck() -> None:
    import dataclasses

    from pishti.arena.duplicate import GameResult, PairResult
    from pishti.arena.stats import paired_difference

    def game(points: tuple[int, int], decks: int, score: float) -> GameResult:
        return GameResult(False, score, decks, points, (0, 0), (0, 0), ((), ()), ((), ()))

    pairs = [
        PairResult(0, (game((60, 40), 4, 1.0), game((50, 55), 4, 0.0))),
        PairResult(1, (game((70, 30), 5, 1.0), game((52, 40), 3, 1.0))),
        PairResult(2, (game((40, 51), 4, 0.0), game((51, 20), 2, 1.0))),
    ]
    refs = [
        (game((51, 45), 4, 1.0), game((40, 51), 4, 0.0)),
        (game((52, 40), 4, 1.0), game((45, 52), 4, 0.0)),
        (game((30, 52), 3, 0.0), game((51, 30), 3, 1.0)),
    ]
    compared = [dataclasses.replace(p, reference=r) for p, r in zip(pairs, refs, strict=True)]
    out = paired_difference(compared)
    # A: margins 15, 52, 20 over 8, 8, 6 decks = 87/22; C: -5, 5, -1 over 8, 8, 6 = -1/22.
    assert abs(out["margin_per_deck"].value - 88 / 22) < 1e-12
    # Win rates per pair: A 0.5, 1.0, 0.5; C 0.5, 0.5, 0.5: differences 0, 0.5, 0.
    assert abs(out["win_rate"].value - 1 / 6) < 1e-12
    assert out["margin_per_deck"].low < out["margin_per_deck"].value < out["margin_per_deck"].high
    # One pair: the margin has no interval, the win-rate difference its range.
    one = paired_difference(compared[1:2])
    assert one["margin_per_deck"] == Estimate(52 / 8 - 5 / 8, -math.inf, math.inf)
    assert one["win_rate"] == Estimate(0.5, -1.0, 1.0)
    assert one["win_rate"].text(3) == "0.500 [-1.000, 1.000]"


def test_percentile_is_the_nearest_rank() -> None:
    times = [0.004, 0.001, 0.003, 0.002]
    assert percentile(times, 0.95) == 0.004
    assert percentile(times, 0.5) == 0.002
    assert percentile(times, 0.75) == 0.003
    # 20 moves: the 95th percentile is the 19th fastest, the slowest one left out.
    assert percentile([float(t) for t in range(1, 21)], 0.95) == 19.0
    assert percentile([], 0.95) == 0.0


def test_a_sides_report_gives_the_95th_percentile_of_its_move_times() -> None:
    from pishti.arena.duplicate import GameResult, PairResult
    from pishti.arena.stats import summarize

    a_times = tuple(t / 1000 for t in range(1, 21))  # 1 ms ... 20 ms
    b_times = tuple(t / 1000 for t in range(21, 41))
    game = GameResult(
        False, 1.0, 1, (20, 10), (0, 0), (0, 0), (a_times, b_times), (a_times, b_times)
    )
    side_a, side_b = summarize([PairResult(0, (game, game))], "a", "b")["sides"]
    assert round(side_a.p95_move_ms, 9) == 19.0
    assert round(side_a.p95_move_cpu_ms, 9) == 19.0
    assert round(side_b.p95_move_ms, 9) == 39.0
    assert side_a.as_json()["p95_move_ms"] == 19.0
