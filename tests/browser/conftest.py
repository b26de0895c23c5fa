"""Browser tests: the real table server in a subprocess, Debian's Chromium through Playwright.

Every test gets pages whose page errors and console errors are collected; any
of them fails the test.  Screenshots go to ``test-artifacts/screenshots`` (or
``$PISHTI_SCREENSHOTS``).
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from driver import pishti_command

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


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(
    folder: Path, *extra: str, bot_delay: float = 0.0
) -> tuple[subprocess.Popen[bytes], str]:
    """Start ``pishti serve`` on a free loopback port with a fresh SQLite file and
    (by default) instant bots; return the process and its base URL once it answers."""
    port = _free_port()
    log = (folder / "server.log").open("w")
    proc = subprocess.Popen(
        pishti_command(
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--db",
            str(folder / "pishti.db"),
            "--bot-delay",
            str(bot_delay),
            "--log-level",
            "warning",
            "--http-rate",
            "1000",
            *extra,
        ),
        stdout=log,
        stderr=subprocess.STDOUT,
        cwd=folder,
    )
    log.close()
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90  # a loaded machine took over 30 s to start one
    while True:
        try:
            with urllib.request.urlopen(base + "/healthz", timeout=1) as response:
                if response.status == 200:
                    return proc, base
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError("the server did not start:\n" + (folder / "server.log").read_text())
        time.sleep(0.1)


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The table server for the session.  It serves the browser client from its
    packaged folder, as ``pishti serve`` does."""
    proc, base = start_server(tmp_path_factory.mktemp("server"))
    yield base
    stop_server(proc)


@pytest.fixture(scope="session")
def fast_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A table server whose clocks run 20 times faster, for timeouts and autopilot
    (R7.2, R7.3); its bots and the autopilot take 0.2 s a card, so a match lasts."""
    folder = tmp_path_factory.mktemp("fast-server")
    proc, base = start_server(folder, "--time-scale", "0.05", bot_delay=0.2)
    yield base
    stop_server(proc)


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
