"""An arena run kept on disk as it goes: a JSON-lines file, one line per duplicate match.

The first line is the run's settings::

    {"arena": 1, "bots": ["expert", "greedy"], "players": 2, "target": 101,
     "seed": 3, "matches": 200, "move_time": 2.0, "reference": "standard"}

and every later line one finished duplicate match (:class:`PairResult`), in
the order they finished::

    {"index": 17, "games": [{"swapped": false, "score": 1.0, "decks": 6,
      "points": [104, 71], "pishtis": [3, 2], "jack_pishtis": [0, 0],
      "times": [[...], [...]], "cpu_times": [[...], [...]],
      "fallbacks": [0, 0], "notes": []}, {...}],
     "reference_games": [{...}, {...}]}

(``reference`` and ``reference_games`` are null and absent in a run without
``--compare``.)  A run continued with a larger ``--matches`` gets a line
``{"matches": 400}`` where it was continued: from there on it is a run of
that many.

Each line is written and flushed as its match finishes, so an interrupted
run loses at most the matches in play; ``pishti arena --resume FILE`` reads
the file back (:func:`read_results`) and plays only the matches missing.
A last line cut short by a crash is dropped when the file is read.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any

from pishti.arena.duplicate import GameResult, PairResult

FORMAT = 1
"""The version of the file's layout, in the settings line's ``"arena"`` field."""


@dataclass(frozen=True, slots=True)
class RunSettings:
    """What defines an arena run: the same settings give the same matches.

    Attributes:
        bots: ``(side A, side B)`` bot specs.  players: 4 or 2.  target: points (R6.1).
        seed: the run's seed.  matches: duplicate matches asked for.
        move_time: seconds a plug-in may take per move, or None.
        reference: the bot that also plays side B on the same deals
            (``--compare``), or None.
    """

    bots: tuple[str, str]
    players: int
    target: int
    seed: int
    matches: int
    move_time: float | None
    reference: str | None = None

    def as_json(self) -> dict[str, Any]:
        """The settings line's fields."""
        return {
            "arena": FORMAT,
            "bots": list(self.bots),
            "players": self.players,
            "target": self.target,
            "seed": self.seed,
            "matches": self.matches,
            "move_time": self.move_time,
            "reference": self.reference,
        }


def _rounded(values: tuple[float, ...]) -> list[float]:
    return [round(v, 7) for v in values]


def pair_json(pair: PairResult) -> dict[str, Any]:
    """One duplicate match as a JSON-ready dict (times rounded to 0.1 microsecond)."""
    data: dict[str, Any] = {"index": pair.index, "games": [_game_json(g) for g in pair.games]}
    if pair.reference is not None:
        data["reference_games"] = [_game_json(g) for g in pair.reference]
    return data


def _game_json(g: GameResult) -> dict[str, Any]:
    return {
        "swapped": g.swapped,
        "score": g.score,
        "decks": g.decks,
        "points": list(g.points),
        "pishtis": list(g.pishtis),
        "jack_pishtis": list(g.jack_pishtis),
        "times": [_rounded(g.times[0]), _rounded(g.times[1])],
        "cpu_times": [_rounded(g.cpu_times[0]), _rounded(g.cpu_times[1])],
        "fallbacks": list(g.fallbacks),
        "notes": list(g.notes),
    }


def _two(values: Any, kind: type) -> tuple[Any, Any]:
    if not isinstance(values, list) or len(values) != 2:
        raise ValueError(f"expected a pair of values, not {values!r}")
    return kind(values[0]), kind(values[1])


def _game(data: Any) -> GameResult:
    if not isinstance(data, dict):
        raise ValueError("a game is not an object")
    times = data["times"]
    cpu = data["cpu_times"]
    return GameResult(
        swapped=bool(data["swapped"]),
        score=float(data["score"]),
        decks=int(data["decks"]),
        points=_two(data["points"], int),
        pishtis=_two(data["pishtis"], int),
        jack_pishtis=_two(data["jack_pishtis"], int),
        times=(tuple(map(float, times[0])), tuple(map(float, times[1]))),
        cpu_times=(tuple(map(float, cpu[0])), tuple(map(float, cpu[1]))),
        fallbacks=_two(data.get("fallbacks", [0, 0]), int),
        notes=tuple(str(n) for n in data.get("notes", [])),
    )


def pair_from_json(data: Any) -> PairResult:
    """Read back :func:`pair_json`.

    Raises:
        ValueError: a field is missing or of the wrong kind.
    """
    try:
        games = data["games"]
        if len(games) != 2:
            raise ValueError("a duplicate match has two games")
        reference = data.get("reference_games")
        if reference is not None and len(reference) != 2:
            raise ValueError("a duplicate match has two reference games")
        return PairResult(
            int(data["index"]),
            (_game(games[0]), _game(games[1])),
            None if reference is None else (_game(reference[0]), _game(reference[1])),
        )
    except (KeyError, TypeError, IndexError) as exc:
        raise ValueError(f"not a duplicate match: {exc!r}") from None


def settings_from_json(data: Any) -> RunSettings:
    """Read back :meth:`RunSettings.as_json`.

    Raises:
        ValueError: not a settings line of this format.
    """
    try:
        if not isinstance(data, dict) or data.get("arena") != FORMAT:
            raise ValueError("its first line is not an arena run's settings")
        bots = data["bots"]
        move_time = data["move_time"]
        return RunSettings(
            bots=(str(bots[0]), str(bots[1])),
            players=int(data["players"]),
            target=int(data["target"]),
            seed=int(data["seed"]),
            matches=int(data["matches"]),
            move_time=None if move_time is None else float(move_time),
            reference=None if data.get("reference") is None else str(data["reference"]),
        )
    except (KeyError, TypeError, IndexError) as exc:
        raise ValueError(f"its settings line lacks {exc}") from None


def read_results(path: Path) -> tuple[RunSettings, list[PairResult]]:
    """Read an arena results file: its settings and its finished duplicate matches.

    A last line cut short (a run killed while writing) is dropped; a match
    that appears twice counts once.

    Raises:
        ValueError: the file cannot be read, is empty, or a line other than
            the last is not valid (the message names the line).
    """
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ValueError(f"cannot read {str(path)!r}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise ValueError(f"{str(path)!r} is not an arena results file") from None
    if not lines:
        raise ValueError(f"{str(path)!r} is empty")
    try:
        settings = settings_from_json(json.loads(lines[0]))
    except ValueError as exc:
        raise ValueError(f"{str(path)!r} is not an arena results file: {exc}") from None
    pairs: dict[int, PairResult] = {}
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            if isinstance(data, dict) and "index" not in data and "matches" in data:
                size = data["matches"]
                if type(size) is not int or size < 1:
                    raise ValueError(f"a run size must be a whole number above 0, not {size!r}")
                settings = replace(settings, matches=max(settings.matches, size))
                continue
            pair = pair_from_json(data)
        except ValueError as exc:
            if number == len(lines):
                break  # cut short by a crash: that match is played again
            raise ValueError(f"{str(path)!r} line {number}: {exc}") from None
        pairs.setdefault(pair.index, pair)
    if pairs:  # a file grown before its size was written holds more than it says
        settings = replace(settings, matches=max(settings.matches, 1 + max(pairs)))
    return settings, [pairs[i] for i in sorted(pairs)]


class ResultsWriter:
    """Appends finished duplicate matches to a results file, one flushed line each."""

    def __init__(self, stream: IO[str]) -> None:
        """Write to ``stream`` (opened for appending by the caller)."""
        self.stream = stream

    @classmethod
    def start(cls, path: Path, settings: RunSettings) -> ResultsWriter:
        """Create ``path`` with the settings line.

        Raises:
            ValueError: the file exists (resume it instead) or cannot be written.
        """
        try:
            stream = path.open("x", encoding="utf-8")
        except FileExistsError:
            raise ValueError(
                f"{str(path)!r} exists: --resume it, or name another file with --results"
            ) from None
        except OSError as exc:
            raise ValueError(f"cannot write {str(path)!r}: {exc.strerror}") from None
        writer = cls(stream)
        writer.write(settings.as_json())
        return writer

    @classmethod
    def resume(cls, path: Path) -> ResultsWriter:
        """Open ``path`` to append further matches; a last line cut short is cut off.

        Raises:
            ValueError: it cannot be written.
        """
        try:
            with path.open("rb+") as raw:
                data = raw.read()
                if data and not data.endswith(b"\n"):
                    raw.truncate(data.rfind(b"\n") + 1)
            stream = path.open("a", encoding="utf-8")
        except OSError as exc:
            raise ValueError(f"cannot write {str(path)!r}: {exc.strerror}") from None
        return cls(stream)

    def write(self, data: dict[str, Any]) -> None:
        """Write one line and flush it to the file."""
        self.stream.write(json.dumps(data, separators=(",", ":")) + "\n")
        self.stream.flush()

    def grow(self, matches: int) -> None:
        """Record that the run now asks for ``matches`` duplicate matches."""
        self.write({"matches": matches})

    def add(self, pair: PairResult) -> None:
        """Write one finished duplicate match."""
        self.write(pair_json(pair))

    def close(self) -> None:
        """Close the file."""
        self.stream.close()
