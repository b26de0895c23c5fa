"""Benchmark of the 3D table: frame time during a deck and the page weight it adds.

Starts ``pishti serve`` on 127.0.0.1 (a fresh SQLite file in a temporary
folder, bots that take ``--bot-delay`` seconds a card, so cards keep moving),
opens the client in headless Chromium with WebGL drawn in software
(SwiftShader, as on a machine without a GPU), creates a table of four with
three bots, switches to the 3D table and plays ``--decks`` decks by clicking
cards where the scene draws them.  The scene keeps the interval between each
two frames it draws while cards move; this prints their median and 95th
percentile (ms), how many there were, and the resolution the scene settled at
(pixels drawn per CSS pixel: it draws fewer when frames come slowly).
On a machine shared with other work those intervals follow the load, so it
also prints the CPU time that all of Chromium's processes (the page, the GPU
process where SwiftShader draws, the browser) spent during the deck, divided
by the frames drawn: the cost of a frame whatever the load (an upper bound:
it includes the page's other work).  ``--repeat N`` runs N times, each on a
fresh server, and prints the medians.

It also prints the page weight: the bytes the 3D table adds, loaded only when
a player opens it (three.js and the scene), and what every page loads for the
switch, raw and gzip-compressed.

    .venv/bin/python bench/table3d.py
    .venv/bin/python bench/table3d.py --repeat 3 --viewport 390x844
"""

from __future__ import annotations

import argparse
import gzip
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

STATIC = Path(__file__).resolve().parents[1] / "src" / "pishti" / "server" / "static"
ON_OPEN = [
    "js/vendor/three/three.module.js",
    "js/vendor/three/three.core.js",
    "js/table3d/scene.js",
    "js/table3d/textures.js",
]
ALWAYS = ["js/table3d/switch.js", "css/table3d.css"]
CHROMIUM = os.environ.get("PISHTI_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader"]


def weight(files: list[str]) -> tuple[int, int]:
    """Raw and gzip-compressed bytes of ``files`` (paths under static/)."""
    raw = [(STATIC / f).read_bytes() for f in files]
    return sum(len(b) for b in raw), sum(len(gzip.compress(b, 6)) for b in raw)


def start_server(folder: Path, bot_delay: float) -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    command = [sys.executable, "-c", "from pishti.cli import main; main()", "serve"]
    command += ["--host", "127.0.0.1", "--port", str(port), "--db", str(folder / "p.db")]
    command += ["--bot-delay", str(bot_delay), "--log-level", "warning", "--http-rate", "1000"]
    proc = subprocess.Popen(command, cwd=folder, stdout=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(base + "/healthz", timeout=1):
                return proc, base
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError("the server did not start")


def chromium_cpu_seconds(exclude: int) -> float:
    """CPU seconds (user + system) of this process's descendants but ``exclude``
    (the server) and its own: Playwright's driver and Chromium's processes."""
    children: dict[int, list[int]] = {}
    stats: dict[int, list[str]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            text = (entry / "stat").read_text()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2 :].split()
        pid = int(entry.name)
        stats[pid] = fields
        children.setdefault(int(fields[1]), []).append(pid)
    total = 0
    todo = [pid for pid in children.get(os.getpid(), []) if pid != exclude]
    while todo:
        pid = todo.pop()
        total += int(stats[pid][11]) + int(stats[pid][12])
        todo.extend(children.get(pid, []))
    return total / os.sysconf("SC_CLK_TCK")


def play(page: Any, decks: int) -> None:
    """Play ``decks`` decks in 3D by clicking cards where the scene draws them."""
    counted = 0
    for _ in range(400):
        page.wait_for_function(
            """() => (document.querySelector('#count-dialog') || {}).open
                 || document.querySelector('.end-screen')
                 || (document.querySelector('.hand.playable .hand-card')
                     && window.pishtiScene && window.pishtiScene.settled())""",
            timeout=60_000,
            polling=50,
        )
        if page.query_selector(".end-screen"):
            return
        if page.evaluate("() => document.querySelector('#count-dialog').open"):
            counted += 1
            if counted >= decks:
                return
            page.click("#count-close")
            page.wait_for_function("() => !document.querySelector('#count-dialog').open")
            continue
        card = page.eval_on_selector(".hand .hand-card", "b => b.dataset.card")
        point = page.evaluate("(c) => window.pishtiScene.cardPoint(c)", card)
        page.mouse.click(point["x"], point["y"])
        page.wait_for_function(
            "(c) => !document.querySelector(`.hand .hand-card[data-card='${c}']`)", arg=card
        )
    raise RuntimeError("the deck did not end")


def run(decks: int, viewport: Any, bot_delay: float) -> dict[str, float]:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        proc, base = start_server(Path(tmp), bot_delay)
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                page = browser.new_page(base_url=base, viewport=viewport)
                page.set_default_timeout(60_000)
                page.goto("/")
                page.fill("#player-name", "Bench")
                page.click("#create-table")
                page.wait_for_selector(".lobby-screen #invite-link")
                for seat in (1, 2, 3):
                    page.click(f"#add-bot-{seat}")
                    page.wait_for_selector(f".lobby-seat.kind-bot[data-seat='{seat}']")
                page.click("#start-match")
                page.wait_for_selector(".table-screen .hand")
                page.keyboard.press("v")
                page.wait_for_function("() => Boolean(window.pishtiScene)")
                renders = int(page.evaluate("() => window.pishtiScene.renders"))
                cpu = chromium_cpu_seconds(exclude=proc.pid)
                play(page, decks)
                cpu = chromium_cpu_seconds(exclude=proc.pid) - cpu
                renders = int(page.evaluate("() => window.pishtiScene.renders")) - renders
                frames: list[float] = page.evaluate("() => window.pishtiScene.frames")
                ratio = float(page.evaluate("() => window.pishtiScene.ratio"))
                renderer = str(page.evaluate("() => window.pishtiScene.software"))
                browser.close()
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    frames.sort()
    return {
        "frames": len(frames),
        "median_ms": statistics.median(frames),
        "p95_ms": frames[int(0.95 * (len(frames) - 1))],
        "ratio": ratio,
        "software": renderer == "True",
        "cpu_ms_per_frame": 1000 * cpu / max(1, renders),
        "load": os.getloadavg()[0],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--decks", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--viewport", default="1280x800", help="WIDTHxHEIGHT in CSS pixels")
    parser.add_argument("--bot-delay", type=float, default=0.4)
    args = parser.parse_args()
    width, height = (int(v) for v in args.viewport.split("x"))
    raw, packed = weight(ON_OPEN)
    print(f"loaded when the 3D table opens: {raw / 1e6:.2f} MB ({packed / 1e3:.0f} kB gzip)")
    raw, packed = weight(ALWAYS)
    print(f"loaded by every table page:     {raw / 1e3:.1f} kB ({packed / 1e3:.1f} kB gzip)")
    results = []
    for i in range(args.repeat):
        result = run(args.decks, {"width": width, "height": height}, args.bot_delay)
        results.append(result)
        print(
            f"run {i + 1}: {result['frames']} frames while cards moved, "
            f"median {result['median_ms']:.1f} ms, p95 {result['p95_ms']:.1f} ms, "
            f"resolution {result['ratio']:.2f} px per CSS px, software WebGL {result['software']}; "
            f"Chromium CPU {result['cpu_ms_per_frame']:.1f} ms per frame drawn; "
            f"load average {result['load']:.1f} on {os.cpu_count()} cores"
        )
    if args.repeat > 1:
        median = statistics.median(r["median_ms"] for r in results)
        p95 = statistics.median(r["p95_ms"] for r in results)
        cpu = statistics.median(r["cpu_ms_per_frame"] for r in results)
        print(
            f"medians of {args.repeat} runs: median {median:.1f} ms, p95 {p95:.1f} ms, "
            f"Chromium CPU {cpu:.1f} ms per frame drawn"
        )


if __name__ == "__main__":
    main()
