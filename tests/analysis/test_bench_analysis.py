"""bench/analysis.py's command line: a part asked for 0 times is left out."""

from __future__ import annotations

import pytest
from bench import analysis


def test_the_timing_alone_ends_cleanly(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # `analysis.py N 0` printed its timing, then failed on the agreement of no position
    # (ZeroDivisionError).
    runs: list[int] = []
    monkeypatch.setattr(analysis, "timing", runs.append)  # the match itself: seconds
    analysis.main(["2", "0"])
    assert runs == [2]
    assert capsys.readouterr().out == ""
