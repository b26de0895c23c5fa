"""HAProxy's configuration for a cluster of table server nodes (docs/deploy.md).

Every request of a table (``/t/{id}``, ``/api/tables/{id}...``, ``/ws/tables/{id}``)
goes to one node, chosen by a consistent hash of the table id over the nodes that
pass their health check (``GET /healthz``); a request without a table (``/``,
creating a table, the client's files) goes to any live node; an analysis of a record
file (``/api/analysis...``) goes to one node chosen by a consistent hash of the
client's address, as it is kept in that node's memory.  When a node fails its check,
the sessions to it are cut and its share of the hash goes to the others; when it
passes again, its share comes back (the tables then move back by lease hand-over,
:mod:`pishti.server.leases`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Backend:
    """One node: its ``name`` (``--node``) and the ``address`` it listens on (host:port)."""

    name: str
    address: str


def haproxy_config(
    bind: str,
    nodes: Sequence[Backend],
    *,
    check_every_ms: int = 500,
    header_timeout: float = 10.0,
    stats: str | None = None,
) -> str:
    """The text of ``haproxy.cfg`` for ``nodes`` behind ``bind`` (``host:port``).

    Args:
        check_every_ms: milliseconds between two health checks of a node; a node is
            out after 3 failed checks in a row (refused, or no answer within 2 s), back
            after 2 good ones.  A killed node is so out after 3 refused checks
            (``3 * check_every_ms``), a paused one after 3 unanswered ones (about
            ``3 * (2 s + check_every_ms)``).  A busy node on a loaded machine may take
            over a second to answer; had one slow answer been enough, HAProxy would
            mark it down and cut every session it carries (``on-marked-down
            shutdown-sessions``), requests in flight included (measured: with
            ``timeout check 1s`` and ``fall 2``, 1,000 tables on three nodes of a
            machine at load average 15 had a live node marked down, its 139 sessions
            cut, while the tables were being made).
        header_timeout: seconds a client has to send a request's head (HAProxy's
            ``timeout http-request``): the nodes' ``--header-timeout``, so a slow client
            is closed through HAProxy as by a node (HAProxy answers it 408).
        stats: ``host:port`` of HAProxy's statistics page, or None for none.
    """
    servers = "\n".join(
        f"    server {n.name} {n.address} check inter {check_every_ms} fall 3 rise 2" for n in nodes
    )
    tracked = "\n".join(f"    server {n.name} {n.address} track tables/{n.name}" for n in nodes)
    timeout_ms = round(header_timeout * 1000)
    stats_section = (
        ""
        if stats is None
        else f"""
listen stats
    bind {stats}
    stats enable
    stats uri /
"""
    )
    return f"""# Made by pishti (pishti.cluster.haproxy); docs/deploy.md explains each part.
global
    maxconn 8000
    # Sessions that end abnormally (cut, refused, timed out) are logged on stdout.
    log stdout format raw local0

defaults
    mode http
    log global
    option httplog
    option dontlog-normal
    maxconn 8000
    # The nodes learn the client's address from X-Forwarded-For (--forwarded-allow-ips
    # HAProxy's address): HAProxy puts the address it sees, after dropping any the
    # client sent (below), so nobody picks the address their limits count.
    option forwardfor
    # One server connection per request: a node closes a connection idle for 5 s
    # (uvicorn's keep-alive), and a request HAProxy sent on such a connection as it
    # closed was cut with no answer (a POST is not retried).  Clients keep theirs.
    option http-server-close
    option redispatch
    retries 2
    timeout connect 2s
    timeout client 60s
    timeout server 60s
    timeout tunnel 1h
    timeout check 2s
    # As a node: a request head must come within --header-timeout, and a kept
    # connection left idle is closed after 5 s (KEEP_ALIVE_TIMEOUT).
    timeout http-request {timeout_ms}ms
    timeout http-keep-alive 5s

frontend pishti
    bind {bind}
    http-request del-header X-Forwarded-For
    # The table id: /t/ID, /api/tables/ID..., /ws/tables/ID
    http-request set-var(txn.table) path,field(3,/) if {{ path_beg /t/ }}
    http-request set-var(txn.table) path,field(4,/) if {{ path_beg /api/tables/ /ws/tables/ }}
    use_backend tables if {{ var(txn.table) -m found }}
    # A record file's analysis is kept in the memory of the node that computes it:
    # its POST and the GETs that follow it go to one node, by the client's address.
    use_backend analyses if {{ path /api/analysis }} || {{ path_beg /api/analysis/ }}
    default_backend any

backend tables
    balance hash var(txn.table)
    hash-type consistent
    option httpchk GET /healthz
    http-check expect status 200
    default-server on-marked-down shutdown-sessions
{servers}

backend any
    balance roundrobin
{tracked}

backend analyses
    balance source
    hash-type consistent
{tracked}
{stats_section}"""
