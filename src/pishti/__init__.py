"""Pishti (Pişti): the Turkish fishing card game — engine, records, bots and table server."""

__version__ = "0.1.0"
