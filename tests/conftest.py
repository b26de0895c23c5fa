"""Shared test settings.

Hypothesis profiles: ``ci`` (the default) is derandomized, so every run tries
the same examples and the suite stays fast and stable; ``dev`` tries fewer;
``thorough`` tries many more, with fresh examples each run::

    ./dev test --hypothesis-profile=thorough tests/engine/test_properties.py
"""

import pytest
from hypothesis import HealthCheck, settings

_common = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("ci", max_examples=100, derandomize=True, **_common)
settings.register_profile("dev", max_examples=30, **_common)
settings.register_profile("thorough", max_examples=2000, **_common)
settings.load_profile("ci")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the tests that stop bot threads mid-move without coverage's tracing
    (``no_cover``): an exception raised in a thread from outside
    (``PyThreadState_SetAsyncExc``) lands at another moment when every line is
    traced, so a slow move is no longer stopped as it is in play."""
    for item in items:
        if item.path.name in ("test_guard.py", "test_cli_faults.py"):
            item.add_marker(pytest.mark.no_cover)
