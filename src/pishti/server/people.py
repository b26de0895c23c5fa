"""People's identities, their finished matches and everyone's ratings, in the database.

A person who plays from the same browser keeps an identity without signing
up: the browser keeps a long random key and sends it with a join; the server
keeps only its SHA-256 (:func:`identity_hash`), never the key.  Four tables,
in the store's SQLAlchemy Core style so that they work on SQLite and
PostgreSQL alike:

- ``identities``: one row per identity hash: the name it last played under.
- ``seat_identities``: which identity took which seat of a table, and from
  which match on (``since_match``: the table's matches started before the join).
- ``match_players``: one row per seat of every finished match, written in the
  transaction that stores the match's record: who held the seat (a person, with
  the identity that sat there if any, or a bot level), the team's points and
  the other team's, the result, the decks played, the seat's own pishtis, and
  the rating before and after (:mod:`pishti.server.ratings`).
- ``ratings``: the current rating of every identity (``id:<hash>``) and every
  bot level (``bot:<level>``).

The functions here run in the store's database thread, inside a transaction
(``conn``); :class:`~pishti.server.store.Store` calls them.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from pishti.engine.deck import JACK_PISHTI, PISHTI, Deck, team_of
from pishti.records import MatchRecord, replay
from pishti.server.ratings import Rating, rate_match


def identity_hash(key: str) -> str:
    """The SHA-256 (hex) of a browser identity key: all the server keeps of it."""
    return hashlib.sha256(key.encode("ascii")).hexdigest()


def define_tables(metadata: sa.MetaData) -> tuple[sa.Table, sa.Table, sa.Table, sa.Table]:
    """The four tables of this module (module doc), on ``metadata``."""
    identities = sa.Table(
        "identities",
        metadata,
        sa.Column("identity", sa.String(64), primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("seen", sa.Float, nullable=False),
    )
    seat_identities = sa.Table(
        "seat_identities",
        metadata,
        sa.Column("table_id", sa.String(32), sa.ForeignKey("tables.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("since_match", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("identity", sa.String(64), nullable=False, index=True),
    )
    players = sa.Table(
        "match_players",
        metadata,
        sa.Column("table_id", sa.String(32), sa.ForeignKey("tables.id"), primary_key=True),
        sa.Column("match", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("seat", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("kind", sa.String(8), nullable=False),  # "person" or "bot"
        sa.Column("name", sa.String(64)),
        sa.Column("level", sa.String(32)),
        sa.Column("identity", sa.String(64), index=True),
        sa.Column("team", sa.Integer, nullable=False),
        sa.Column("points", sa.Integer, nullable=False),
        sa.Column("other_points", sa.Integer, nullable=False),
        sa.Column("result", sa.String(8), nullable=False),  # "win", "loss" or "draw"
        sa.Column("decks", sa.Integer, nullable=False),
        sa.Column("pishtis", sa.Integer, nullable=False),
        sa.Column("rating_before", sa.Float),
        sa.Column("rating_after", sa.Float),
        sa.Column("finished", sa.Float, nullable=False),
    )
    ratings = sa.Table(
        "ratings",
        metadata,
        sa.Column("player", sa.String(80), primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("matches", sa.Integer, nullable=False),
    )
    return identities, seat_identities, players, ratings


@dataclass(frozen=True, slots=True)
class SeatHolder:
    """Who held a seat when its match ended: ``kind`` ``"human"`` or ``"bot"``, the
    name, a bot's level, and ``left`` (a person's seat a bot took for good, R7.5)."""

    kind: str
    name: str | None
    level: str | None
    left: bool


def seat_pishtis(record: MatchRecord) -> list[int]:
    """Pishtis and jack pishtis (R4.1, R4.2) each seat made in the match of ``record``
    (each deck's plays made again on its layout by the engine)."""
    out = [0] * record.players
    for d in record.decks:
        deck = Deck.from_layout(record.players, d.dealer, d.middle, d.deals)
        for card in d.plays:
            seat = deck.to_play
            if deck.play(card) in (PISHTI, JACK_PISHTI):
                out[seat] += 1
    return out


class People:
    """The queries on the four tables (module doc), run with a connection in a transaction."""

    def __init__(self, metadata: sa.MetaData) -> None:
        """Define the tables on ``metadata`` (the store creates them)."""
        self.identities, self.seat_identities, self.players, self.ratings = define_tables(metadata)

    def claim_seat(
        self, conn: sa.Connection, identity: str, name: str, table_id: str, seat: int, since: int
    ) -> None:
        """``identity`` took ``seat`` of ``table_id`` under ``name`` after ``since`` matches."""
        now = time.time()
        found = conn.execute(
            sa.select(self.identities.c.identity).where(self.identities.c.identity == identity)
        ).first()
        if found is None:
            conn.execute(
                sa.insert(self.identities).values(
                    identity=identity, name=name, created=now, seen=now
                )
            )
        else:
            conn.execute(
                sa.update(self.identities)
                .where(self.identities.c.identity == identity)
                .values(name=name, seen=now)
            )
        key = (
            (self.seat_identities.c.table_id == table_id)
            & (self.seat_identities.c.seat == seat)
            & (self.seat_identities.c.since_match == since)
        )
        conn.execute(sa.delete(self.seat_identities).where(key))
        conn.execute(
            sa.insert(self.seat_identities).values(
                table_id=table_id, seat=seat, since_match=since, identity=identity
            )
        )

    def _seat_identity(
        self, conn: sa.Connection, table_id: str, seat: int, match: int
    ) -> str | None:
        t = self.seat_identities
        row = conn.execute(
            sa.select(t.c.identity)
            .where((t.c.table_id == table_id) & (t.c.seat == seat) & (t.c.since_match < match))
            .order_by(t.c.since_match.desc())
            .limit(1)
        ).first()
        return None if row is None else str(row.identity)

    def _rating(self, conn: sa.Connection, player: str | None) -> Rating:
        if player is None:
            return Rating()
        row = conn.execute(sa.select(self.ratings).where(self.ratings.c.player == player)).first()
        return Rating() if row is None else Rating(row.mu, row.sigma, row.matches)

    def _save_rating(self, conn: sa.Connection, player: str, rating: Rating) -> None:
        values = {"mu": rating.mu, "sigma": rating.sigma, "matches": rating.matches}
        done = conn.execute(
            sa.update(self.ratings).where(self.ratings.c.player == player).values(**values)
        )
        if done.rowcount == 0:
            conn.execute(sa.insert(self.ratings).values(player=player, **values))

    def finish_match(
        self,
        conn: sa.Connection,
        table_id: str,
        match: int,
        record: MatchRecord,
        holders: list[SeatHolder],
        finished: float,
    ) -> None:
        """Write the ``match_players`` rows of a finished match and move the ratings
        (:func:`~pishti.server.ratings.rate_match`)."""
        result = replay(record)
        totals = result.totals
        winner = result.winner
        pishtis = seat_pishtis(record)
        players = record.players
        keys: list[str | None] = []
        rows: list[dict[str, Any]] = []
        for seat, holder in enumerate(holders):
            team = team_of(seat) if players == 4 else seat
            identity = self._seat_identity(conn, table_id, seat, match)
            person = holder.kind == "human" or holder.left or identity is not None
            keys.append(
                (f"id:{identity}" if identity else None) if person else f"bot:{holder.level}"
            )
            rows.append(
                {
                    "table_id": table_id,
                    "match": match,
                    "seat": seat,
                    "kind": "person" if person else "bot",
                    "name": holder.name if person else None,
                    "level": None if person else holder.level,
                    "identity": identity if person else None,
                    "team": team,
                    "points": totals[team],
                    "other_points": totals[1 - team],
                    "result": "draw" if winner is None else ("win" if winner == team else "loss"),
                    "decks": len(result.decks),
                    "pishtis": pishtis[seat],
                    "finished": finished,
                }
            )
        before = [self._rating(conn, key) for key in keys]
        teams_of = [r["team"] for r in rows]
        sides = (
            [before[s] for s in range(players) if teams_of[s] == 0],
            [before[s] for s in range(players) if teams_of[s] == 1],
        )
        after_sides = rate_match(sides, winner)
        taken = [0, 0]
        saved: set[str] = set()
        for seat, row in enumerate(rows):
            team = teams_of[seat]
            new = after_sides[team][taken[team]]
            taken[team] += 1
            key = keys[seat]
            row["rating_before"] = before[seat].shown if key else None
            row["rating_after"] = new.shown if key else None
            # A bot level at seats of both teams learns nothing from the match; at
            # two seats of one team it is moved once.
            both = (
                key is not None and len({teams_of[s] for s, k in enumerate(keys) if k == key}) > 1
            )
            if key is not None and key not in saved and not both:
                self._save_rating(conn, key, new)
                saved.add(key)
        conn.execute(sa.insert(self.players), rows)

    def history(self, conn: sa.Connection, identity: str) -> dict[str, Any] | None:
        """An identity's page (docs/server.md, "History and ratings"), or None when unknown."""
        who = conn.execute(
            sa.select(self.identities).where(self.identities.c.identity == identity)
        ).first()
        if who is None:
            return None
        p = self.players
        mine = conn.execute(
            sa.select(p).where(p.c.identity == identity).order_by(p.c.finished.desc())
        ).all()
        matches = []
        for row in mine:
            seats = conn.execute(
                sa.select(p.c.seat, p.c.team, p.c.kind, p.c.name, p.c.level)
                .where((p.c.table_id == row.table_id) & (p.c.match == row.match))
                .order_by(p.c.seat)
            ).all()
            others = [s for s in seats if s.seat != row.seat]

            def label(s: Any) -> dict[str, Any]:
                return {"seat": s.seat, "kind": s.kind, "name": s.name, "level": s.level}

            matches.append(
                {
                    "table_id": row.table_id,
                    "match": row.match,
                    "finished": row.finished,
                    "seat": row.seat,
                    "team": row.team,
                    "partners": [label(s) for s in others if s.team == row.team],
                    "opponents": [label(s) for s in others if s.team != row.team],
                    "score": [row.points, row.other_points],
                    "result": row.result,
                    "decks": row.decks,
                    "pishtis": row.pishtis,
                    "rating_before": row.rating_before,
                    "rating_after": row.rating_after,
                    "replay": f"/r/{row.table_id}/{row.match}",
                }
            )
        decks = sum(m["decks"] for m in matches)
        rating = self._rating(conn, f"id:{identity}")
        return {
            "name": who.name,
            "figures": {
                "matches": len(matches),
                "wins": sum(1 for m in matches if m["result"] == "win"),
                "decks": decks,
                "points_per_deck": round(sum(m["score"][0] for m in matches) / decks, 2)
                if decks
                else 0.0,
                "pishtis_per_deck": round(sum(m["pishtis"] for m in matches) / decks, 3)
                if decks
                else 0.0,
            },
            "rating": _rating_json(rating),
            "matches": matches,
        }

    def leaderboard(self, conn: sa.Connection, min_matches: int) -> list[dict[str, Any]]:
        """Every bot level, and every person with at least ``min_matches`` rated
        matches, best first by the shown rating."""
        rows = conn.execute(sa.select(self.ratings)).all()
        names = dict(
            conn.execute(sa.select(self.identities.c.identity, self.identities.c.name)).all()
        )
        out = []
        for row in rows:
            kind, _, rest = str(row.player).partition(":")
            if kind == "id" and (row.matches < min_matches or rest not in names):
                continue
            entry = _rating_json(Rating(row.mu, row.sigma, row.matches))
            if kind == "id":
                entry.update(kind="person", name=names[rest])
            else:
                entry.update(kind="bot", level=rest)
            out.append(entry)
        out.sort(key=lambda e: -e["rating"])
        return out

    def records(
        self, conn: sa.Connection, identity: str, records_t: sa.Table
    ) -> list[dict[str, Any]]:
        """Every finished match of an identity with its R10 record text, oldest first."""
        p = self.players
        rows = conn.execute(
            sa.select(p.c.table_id, p.c.match, p.c.seat, p.c.finished, records_t.c.record)
            .join(
                records_t,
                (records_t.c.table_id == p.c.table_id) & (records_t.c.match == p.c.match),
            )
            .where(p.c.identity == identity)
            .order_by(p.c.finished)
        ).all()
        return [dict(r._mapping) for r in rows]

    def forget(self, conn: sa.Connection, identity: str) -> bool:
        """Delete an identity, its seats and its rating; its name in old matches'
        rows is replaced by None (the other players keep their history).  False
        when the identity is unknown."""
        gone = conn.execute(
            sa.delete(self.identities).where(self.identities.c.identity == identity)
        ).rowcount
        conn.execute(
            sa.delete(self.seat_identities).where(self.seat_identities.c.identity == identity)
        )
        conn.execute(sa.delete(self.ratings).where(self.ratings.c.player == f"id:{identity}"))
        conn.execute(
            sa.update(self.players)
            .where(self.players.c.identity == identity)
            .values(identity=None, name=None)
        )
        return bool(gone)


def _rating_json(rating: Rating) -> dict[str, Any]:
    return {
        "rating": round(rating.shown, 2),
        "mu": round(rating.mu, 3),
        "sigma": round(rating.sigma, 3),
        "matches": rating.matches,
    }
