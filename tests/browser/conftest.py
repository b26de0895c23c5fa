"""Browser tests: the real table server in a subprocess, Debian's Chromium through Playwright.

Every test gets pages whose page errors and console errors are collected; any
of them fails the test.  Screenshots go to ``test-artifacts/screenshots`` (or
``$PISHTI_SCREENSHOTS``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from serving import ServerProcess

CHROMIUM = Path(os.environ.get("PISHTI_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = Path(os.environ.get("PISHTI_SCREENSHOTS", ROOT / "test-artifacts" / "screenshots"))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test in this folder is a browser test; skip them all without Chromium."""
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.browser)
            if not CHROMIUM.exists():
                item.add_marker(pytest.mark.skip(reason=f"no Chromium at {CHROMIUM}"))


def run_server(folder: Path, *extra: str, bot_delay: float = 0.0) -> Iterator[str]:
    """``pishti serve`` on a free loopback port with a fresh SQLite file in ``folder``,
    (by default) instant bots and ``extra`` options; yields its base URL once it
    answers, and stops it after (``yield from`` in a fixture)."""
    args = ("--bot-delay", str(bot_delay), "--log-level", "warning", *extra)
    server = ServerProcess(folder / "pishti.db", *args)
    server.start()
    yield server.http
    server.stop()


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The table server for the session.  It serves the browser client from its
    packaged folder, as ``pishti serve`` does."""
    yield from run_server(tmp_path_factory.mktemp("server"))


@pytest.fixture(scope="session")
def fast_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A table server whose clocks run 20 times faster, for timeouts and autopilot
    (R7.2, R7.3); its bots and the autopilot take 0.2 s a card, so a match lasts."""
    yield from run_server(
        tmp_path_factory.mktemp("fast-server"), "--time-scale", "0.05", bot_delay=0.2
    )


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A headless Chromium for each test module.

    Not for the whole session: Playwright's sync API keeps an event loop running
    in the main thread while it is open, and tests elsewhere use ``asyncio.run``.
    """
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


class PageErrors:
    """Page errors and console errors of every page a test opened."""

    def __init__(self) -> None:
        self.errors: list[str] = []

    def watch(self, page: Any, label: str) -> None:
        page.on("pageerror", lambda exc: self.errors.append(f"{label} page error: {exc}"))
        page.on(
            "console",
            lambda msg: (
                self.errors.append(f"{label} console error: {msg.text}")
                if msg.type == "error"
                else None
            ),
        )


@pytest.fixture
def open_page(browser: Any, server: str) -> Iterator[Callable[..., Any]]:
    """Open a page in a fresh browser context: ``open_page(locale="tr-TR", viewport=...)``.

    The test fails if any page logs a page error or a console error.
    """
    errors = PageErrors()
    contexts: list[Any] = []

    def open_(
        locale: str = "en-US",
        viewport: dict[str, int] | None = None,
        label: str = "",
        base_url: str | None = None,
    ) -> Any:
        context = browser.new_context(
            base_url=base_url or server,
            locale=locale,
            viewport=viewport or {"width": 1280, "height": 800},
            accept_downloads=True,
        )
        context.set_default_timeout(15_000)
        contexts.append(context)
        page = context.new_page()
        errors.watch(page, label or f"page {len(contexts)}")
        return page

    yield open_
    for context in contexts:
        context.close()
    assert errors.errors == [], "\n".join(errors.errors)


@pytest.fixture(scope="session")
def screenshots() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS
