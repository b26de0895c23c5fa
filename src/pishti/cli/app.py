"""The ``pishti`` command's Typer application; each subcommand lives in its own module."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="pishti",
    help="Pishti (Pişti): replay match records, simulate matches, play and serve tables.",
    no_args_is_help=True,
    add_completion=False,
    # Help paragraphs reflow to the terminal's width (rich mode keeps the
    # docstrings' line breaks, which read ragged at other widths).
    rich_markup_mode="markdown",
    pretty_exceptions_enable=False,
)


def fail(message: str, code: int = 1) -> typer.Exit:
    """Print a one-line error on stderr and return the Exit to raise (no traceback)."""
    typer.echo(f"pishti: {message}", err=True)
    return typer.Exit(code)
