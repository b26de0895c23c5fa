"""The ``pishti`` command.  Each subcommand registers itself on import."""

from __future__ import annotations

from pishti.cli import (  # noqa: F401  (registers the subcommands)
    analyse,
    arena,
    play,
    replay,
    serve,
    simulate,
    verify,
)
from pishti.cli.app import app


def main() -> None:
    """Run the ``pishti`` command."""
    app()
