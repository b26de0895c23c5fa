"""``pishti cluster``: a whole cluster on this machine's loopback, to try (docs/deploy.md)."""

from __future__ import annotations

import signal
import threading
from pathlib import Path
from typing import Annotated

import typer

from pishti.cli.app import app, fail


@app.command("cluster")
def cluster_command(
    nodes: Annotated[int, typer.Option(help="How many table server nodes.")] = 3,
    port: Annotated[int, typer.Option(help="HAProxy's port on 127.0.0.1 (0: any free).")] = 8000,
    folder: Annotated[
        Path | None,
        typer.Option(
            help="Where data and logs go (default: a temporary folder, removed at the end)."
        ),
    ] = None,
) -> None:
    """Start a cluster to try: PostgreSQL, NODES server nodes and HAProxy.

    All on 127.0.0.1; the URL is printed; Ctrl-C stops them all and removes the
    database (a cluster to try, not to keep).  Needs Debian's postgresql and
    haproxy packages.
    """
    from pishti.cluster.local import ClusterError, LocalCluster
    from pishti.cluster.postgres import PostgresError

    if not 1 <= nodes <= 16:
        raise fail("--nodes must be from 1 to 16", 2)
    if not 0 <= port <= 65535:
        raise fail("--port must be from 0 to 65535", 2)
    cluster = LocalCluster(nodes, port=port, folder=folder, node_args=["--log-level", "warning"])
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        cluster.start(say=typer.echo)
        typer.echo(f"Pishti cluster: {cluster.url}  (Ctrl-C stops it)")
        typer.echo(f"  PostgreSQL {cluster.postgres.url(cluster.database)}")
        for node in cluster.nodes:
            typer.echo(f"  node {node.name} {node.url}  log {node.log}")
        typer.echo(f"  HAProxy {cluster.config}")
        stop.wait()
    except KeyboardInterrupt:
        pass
    except (ClusterError, PostgresError) as exc:
        raise fail(str(exc), 1) from None
    finally:
        typer.echo("stopping the cluster")
        cluster.stop()
