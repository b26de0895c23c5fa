"""Shared test settings.

Hypothesis profiles: ``ci`` (the default) is derandomized, so every run tries
the same examples and the suite stays fast and stable; ``dev`` tries fewer;
``thorough`` tries many more, with fresh examples each run::

    ./dev test --hypothesis-profile=thorough tests/engine/test_properties.py
"""

import itertools
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from pishti.cluster.postgres import LocalPostgres

_common = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("ci", max_examples=100, derandomize=True, **_common)
settings.register_profile("dev", max_examples=30, **_common)
settings.register_profile("thorough", max_examples=2000, **_common)
settings.load_profile("ci")


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the tests that stop bot threads mid-move without coverage's tracing
    (``no_cover``): an exception raised in a thread from outside
    (``PyThreadState_SetAsyncExc``) lands at another moment when every line is
    traced, so a slow move is no longer stopped as it is in play."""
    for item in items:
        if item.path.name in ("test_guard.py", "test_cli_faults.py"):
            item.add_marker(pytest.mark.no_cover)


@pytest.fixture(scope="session")
def postgres() -> Iterator[LocalPostgres]:
    """One real PostgreSQL server for the whole test session (the machine's own,
    ``apt-get install postgresql``; not skipped when missing: the tests fail)."""
    server = LocalPostgres(free_port(), durable=False)
    server.init()
    server.start()
    yield server
    server.remove()


_databases = itertools.count()


@pytest.fixture
def pg_url(postgres: LocalPostgres) -> str:
    """The URL of a new, empty database on the session's PostgreSQL."""
    return postgres.create_database(f"test_{next(_databases)}")


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A new, empty database: a SQLite file, then a database on a real PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'pishti.db'}"
    url: str = request.getfixturevalue("pg_url")
    return url
