"""The analysis of a whole match record (R10): every play, against the expert.

For every play of the record, from the seat's view at that moment
(:func:`~pishti.engine.view.seat_view`, R7.7: the hidden cards of the record
are never read):

- ``expert``: the card the ``expert`` bot (:class:`~pishti.bots.ExpertBot`)
  chooses there.  One expert per seat follows the deck from its first play,
  so its opponent model learns from the deck's plays as it would at the
  table; it starts afresh each deck (decks are analysed independently, in
  parallel);
- ``cards``: the expected points of every legal card from
  :func:`~pishti.analysis.position.card_values` (``samples`` sampled decks,
  no pruning), and the expected points the played card gave up against the
  best one (``loss``);
- ``mark``: ``"mistake"`` when the loss is at least :data:`MISTAKE` points,
  ``"inaccuracy"`` at least :data:`INACCURACY`, in both cases also more than
  :data:`SURE` standard errors; else None.

:func:`analyse_record` returns the JSON form documented in docs/bots.md,
reproducible from its seed whatever the number of worker processes.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from pishti.analysis.position import SAMPLES, card_values
from pishti.bots.expert import ENDGAME_SAMPLES, ExpertBot
from pishti.bots.expert import SAMPLES as EXPERT_SAMPLES
from pishti.bots.opponents import same_play
from pishti.bots.playout import distinct_cards
from pishti.engine.cards import card_text
from pishti.engine.deck import team_of
from pishti.engine.view import seat_view
from pishti.records.record import MatchRecord
from pishti.records.replay import replay

FORMAT = 1
"""Version of the analysis JSON form."""
INACCURACY = 1.0
"""Expected points lost against the best card that mark an inaccuracy."""
MISTAKE = 3.0
"""Expected points lost against the best card that mark a mistake."""
SURE = 2.0
"""Standard errors by which a loss must exceed zero to be marked."""
EVALUATION = (
    "mean deck points of the seat's team less the other team's (R5.2) after playing "
    "the card, over sampled decks that agree with what the seat saw; the rest of the "
    "deck played by the standard policy for the seat and, for every other seat, a "
    "policy drawn from the expert's opponent model"
)


def _int_seed(text: str) -> int:
    return random.Random(text).getrandbits(63)


def _mark(loss: float, se: float) -> str | None:
    if loss <= SURE * se:
        return None
    if loss >= MISTAKE:
        return "mistake"
    if loss >= INACCURACY:
        return "inaccuracy"
    return None


def analyse_deck(
    record: MatchRecord,
    deck: int,
    samples: int = SAMPLES,
    seed: int = 0,
    expert_samples: int = EXPERT_SAMPLES,
) -> list[dict[str, Any]]:
    """Analyse every play of deck ``deck`` (from 0) of ``record`` (module doc).

    ``samples`` is the evaluation's budget per play, ``expert_samples`` the
    expert's (its live budget by default).

    Returns one JSON object per play, in order (docs/bots.md).
    Raises:
        RecordError: the record does not replay (R10).
        IndexError: no such deck.
    """
    if not 0 <= deck < len(record.decks):
        raise IndexError(f"the record has no deck {deck + 1}")
    head = MatchRecord(
        record.players,
        record.target,
        (*record.decks[:deck], dataclasses.replace(record.decks[deck], plays=())),
    )
    match = replay(head)
    experts = [
        ExpertBot(
            _int_seed(f"{seed}/expert/{deck}/{s}"),
            samples=expert_samples,
            endgame_samples=min(expert_samples, ENDGAME_SAMPLES),
        )
        for s in range(record.players)
    ]
    out: list[dict[str, Any]] = []
    for number, played in enumerate(record.decks[deck].plays, start=1):
        seat = match.to_play
        assert seat is not None
        view = seat_view(match, seat)
        choice = experts[seat].choose(view)
        forced = len(distinct_cards(view.legal_cards)) == 1
        values = card_values(view, f"{seed}/values/{deck}/{number}", samples, experts[seat].model)
        mine = next(v for v in values if v.card == played)
        out.append(
            {
                "play": number,
                "seat": seat,
                "card": card_text(played),
                "expert": card_text(choice),
                "matches_expert": same_play(played, choice),
                "forced": forced,
                "best": card_text(values[0].card),
                "loss": round(mine.loss, 3),
                "se": round(mine.se, 3),
                "mark": None if forced else _mark(mine.loss, mine.se),
                "cards": [
                    {
                        "card": card_text(v.card),
                        "expected": round(v.expected, 3),
                        "loss": round(v.loss, 3),
                    }
                    for v in values
                ],
            }
        )
        match.play(played)
    return out


def _summary(record: MatchRecord, decks: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    rows = []
    for seat in range(record.players):
        plays = [p for deck in decks for p in deck if p["seat"] == seat]
        choices = [p for p in plays if not p["forced"]]
        played_decks = sum(1 for deck in decks if any(p["seat"] == seat for p in deck))
        lost = sum(p["loss"] for p in plays)
        rows.append(
            {
                "seat": seat,
                "team": team_of(seat) if record.players == 4 else seat,
                "plays": len(plays),
                "choices": len(choices),
                "matches_expert": sum(1 for p in choices if p["matches_expert"]),
                "best": sum(1 for p in choices if p["loss"] == 0),
                "points_lost": round(lost, 3),
                "points_lost_per_deck": round(lost / played_decks, 3) if played_decks else 0.0,
                "inaccuracies": sum(1 for p in plays if p["mark"] == "inaccuracy"),
                "mistakes": sum(1 for p in plays if p["mark"] == "mistake"),
            }
        )
    return rows


def _deck_job(args: tuple[MatchRecord, int, int, int, int]) -> list[dict[str, Any]]:
    return analyse_deck(*args)


def analyse_record(
    record: MatchRecord,
    samples: int = SAMPLES,
    seed: int = 0,
    jobs: int = 1,
    expert_samples: int = EXPERT_SAMPLES,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Analyse every play of ``record`` (module doc) in ``jobs`` worker processes.

    Args:
        samples: sampled decks per play (:func:`card_values`).
        seed: the analysis is the same for the same record, samples and seed.
        jobs: worker processes (1: in this process); decks are shared among them.
        expert_samples: the expert's sampled decks per move (its live budget).
        progress: called with the number of plays of each deck analysed, as
            each deck is done.
    Returns:
        the analysis JSON form (docs/bots.md).
    Raises:
        RecordError: the record does not replay (R10).
        ValueError: fewer than 2 samples or 1 job.
    """
    if samples < 2:
        raise ValueError("an analysis needs at least two samples per play")
    if expert_samples < 1:
        raise ValueError("the expert needs at least one sample per move")
    if jobs < 1:
        raise ValueError("an analysis needs at least one job")
    replay(record)  # refuse a broken record before any work
    tasks = [(record, d, samples, seed, expert_samples) for d in range(len(record.decks))]
    decks: list[list[dict[str, Any]]] = []
    if jobs == 1 or len(tasks) == 1:
        for task in tasks:
            decks.append(_deck_job(task))
            if progress is not None:
                progress(len(decks[-1]))
    else:
        with ProcessPoolExecutor(max_workers=min(jobs, len(tasks))) as pool:
            for result in pool.map(_deck_job, tasks):
                decks.append(result)
                if progress is not None:
                    progress(len(result))
    return analysis_json(record, decks, samples, seed, expert_samples)


def analysis_json(
    record: MatchRecord,
    decks: list[list[dict[str, Any]]],
    samples: int,
    seed: int,
    expert_samples: int = EXPERT_SAMPLES,
) -> dict[str, Any]:
    """The analysis JSON form (docs/bots.md) of ``record`` from each deck's
    :func:`analyse_deck` result, in deck order."""
    return {
        "format": FORMAT,
        "players": record.players,
        "target": record.target,
        "seed": seed,
        "samples": samples,
        "expert_samples": expert_samples,
        "evaluation": EVALUATION,
        "thresholds": {"inaccuracy": INACCURACY, "mistake": MISTAKE, "sure_se": SURE},
        "decks": [{"deck": d + 1, "plays": plays} for d, plays in enumerate(decks)],
        "seats": _summary(record, decks),
    }


def total_plays(record: MatchRecord) -> int:
    """How many plays the record holds (the length of an analysis's progress)."""
    return sum(len(d.plays) for d in record.decks)
