"""Who plays a table when several nodes share one PostgreSQL: leases fenced by epoch.

Each table a node plays is leased to it by a row of ``leases`` (owner, epoch,
expiry).  The rules, all decided inside PostgreSQL, with its clock only
(``clock_timestamp()``: no two machines' clocks are ever compared):

- **Taking** a lease (:meth:`pishti.server.store.Store.acquire`) succeeds only when
  its row is missing, has expired (``expires < clock_timestamp()`` on the database),
  or names this node; every take adds 1 to the epoch, so a process that held it
  before (a paused process, or an earlier run of this same node) holds an old epoch.
  The same transaction then reads the table's log, which so holds every change
  the previous owner committed.
- **Every write** of a table's log (its changes, status and records) runs, in the
  same transaction, ``UPDATE leases ... WHERE owner = node AND epoch = held epoch``
  and commits only if every table of the batch matched
  (:class:`LeaseLost` otherwise, and nothing of the batch is written).  That
  update locks the lease row until the commit, so a take waits for it and a write
  waits for a take: one of the two comes first, and a write after a take finds
  another epoch.  The update also renews the lease.
- **Renewing**: every ``ttl / 5`` seconds the node renews all its leases in one
  statement; a table whose lease it no longer holds is dropped, its sockets closed.
- **Handing over**: a node asked for a table whose lease another node holds marks
  the row ``wanted_by`` and answers "retry" (503 ``other_node``, WebSocket close 1013);
  at its next renewal the owner commits what it has queued, closes the table's
  sockets and lets the lease go (``expires`` set to the database's now), and the
  clients' retries then reach the node that wants it.  That is how a table moves
  back to the node the load balancer sends it to after a paused or restarted node
  comes back.
"""

from __future__ import annotations

from dataclasses import dataclass, field

LEASE_SECONDS = 5.0
"""How long a lease lasts unless renewed, on the database's clock."""


class NotOwner(Exception):
    """Another node holds the lease of a table: the client should retry shortly
    (HTTP ``503 other_node`` with ``Retry-After``; a WebSocket closes with 1013).

    Attributes:
        table_id: the table.  owner: the node that holds it.
    """

    def __init__(self, table_id: str, owner: str) -> None:
        super().__init__(
            f"table {table_id} is being played on another node ({owner}): try again in a moment"
        )
        self.table_id = table_id
        self.owner = owner


class LeaseLost(Exception):
    """A write carried a table whose lease this node no longer holds (another node
    took it): nothing of the transaction was written.

    Attributes:
        table_ids: the tables whose lease is lost.
    """

    def __init__(self, table_ids: set[str]) -> None:
        super().__init__(f"lease lost for {len(table_ids)} tables: {sorted(table_ids)[:5]}")
        self.table_ids = table_ids


@dataclass(slots=True)
class Leases:
    """The leases one node holds.

    Attributes:
        node: this node's id (``--node``).
        ttl: seconds a lease lasts unless renewed (on the database's clock).
        held: the epoch of each table whose lease this node holds.
        releasing: tables being handed over to another node (requests for them are
            answered "retry" meanwhile).
        refused: changes refused because their table's lease was lost.
    """

    node: str
    ttl: float = LEASE_SECONDS
    held: dict[str, int] = field(default_factory=dict)
    releasing: set[str] = field(default_factory=set)
    refused: int = 0

    @property
    def orphan_after(self) -> float:
        """Seconds a table being played must have had its lease expired before a node
        takes it up unasked (:meth:`pishti.server.registry.Registry.take_up_orphans`):
        six leases, time for HAProxy to notice a dead or paused node and for its
        people to reconnect, so that the node they reach takes it first (a table taken
        up while its people were still stuck on a paused node would start their holds
        where they cannot reconnect)."""
        return 6 * self.ttl

    @property
    def renew_every(self) -> float:
        """Seconds between two renewals: a fifth of the lease, so that a slow database
        or a busy node misses a few before a lease expires."""
        return self.ttl / 5
