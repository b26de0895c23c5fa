"""Benchmark of the table talk in the browser: from camera on to the peer's first frame.

Starts ``pishti serve`` and Debian's Chromium (Playwright, the fake camera and
microphone of ``--use-fake-device-for-media-stream``) and, ``--samples`` times, seats
two people at a fresh 2-player table through the browser client.  Then:

- **first**: Ayşe turns her camera on while nothing is on at the table, so the
  peer connection is set up then (``media``, offer, answer, ICE through the
  server): milliseconds from the click to Bora's page decoding her first video
  frame (``framesDecoded`` of its inbound video, read every 5 ms in that page);
- **again**: she turns it off and on again, the connection up: milliseconds to
  the first new frame decoded.

Both pages run on this machine, on the same clock (``Date.now()``).  It prints
each sample and the medians.

    .venv/bin/python bench/talk_media.py --samples 7
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
from typing import Any

from playwright.async_api import Browser, Page, async_playwright

from server import serving

WATCH = """() => {
  // Bora's page: note when its inbound video has decoded more frames than before.
  window.__frames = null;
  window.__firstFrame = null;
  const pcs = window.__pcs;
  const frames = async () => {
    let n = 0;
    for (const pc of pcs) {
      if (pc.connectionState === 'closed') continue;
      (await pc.getStats()).forEach((s) => {
        if (s.type === 'inbound-rtp' && s.kind === 'video') n += s.framesDecoded || 0;
      });
    }
    return n;
  };
  return frames().then((start) => {
    const timer = setInterval(async () => {
      const n = await frames();
      if (n > start && window.__firstFrame === null) {
        window.__firstFrame = Date.now();
        clearInterval(timer);
      }
    }, 5);
  });
}"""
COUNT_CONNECTIONS = """
window.__pcs = [];
const Native = window.RTCPeerConnection;
window.RTCPeerConnection = class extends Native {
  constructor(...args) { super(...args); window.__pcs.push(this); }
};
"""


async def person(browser: Browser, base: str) -> Page:
    """A page of its own context, granted the (fake) camera and microphone."""
    context = await browser.new_context(base_url=base)
    await context.grant_permissions(["camera", "microphone"], origin=base)
    await context.add_init_script(COUNT_CONNECTIONS)
    context.set_default_timeout(30_000)
    return await context.new_page()


async def seat_two(ayse: Page, bora: Page) -> None:
    """Ayşe creates a 2-player table, Bora sits by its link, the match starts."""
    await ayse.goto("/")
    await ayse.fill("#player-name", "Ayşe")
    await ayse.check("input[name=players][value='2']")
    await ayse.check("input[name=tempo][value='relaxed']")
    await ayse.click("#create-table")
    await ayse.wait_for_selector(".lobby-screen #invite-link")
    link = await ayse.input_value("#invite-link")
    await bora.goto(link)
    await bora.fill("#visitor-name", "Bora")
    await bora.click("#sit-1")
    await bora.wait_for_selector(".lobby-seat.me[data-seat='1']")
    await ayse.click("#start-match")
    for page in (ayse, bora):
        await page.wait_for_selector(".table-screen .hand")


async def camera_to_frame(ayse: Page, bora: Page) -> float:
    """Milliseconds from Ayşe's click on the camera to a new frame decoded at Bora's."""
    await bora.evaluate(WATCH)
    start: float = await ayse.evaluate(
        "() => { const t = Date.now(); document.querySelector('#talk-cam').click(); return t; }"
    )
    await bora.wait_for_function("() => window.__firstFrame !== null", timeout=30_000, polling=20)
    first: float = await bora.evaluate("() => window.__firstFrame")
    return first - start


async def run(args: argparse.Namespace) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = {"first": [], "again": []}
    async with serving(args) as (base, _pid, _folder), async_playwright() as p:
        browser = await p.chromium.launch(
            executable_path=args.chromium,
            args=[
                "--headless",
                "--no-sandbox",
                "--use-fake-device-for-media-stream",
                "--autoplay-policy=no-user-gesture-required",
            ],
        )
        for _ in range(args.samples):
            ayse, bora = await person(browser, base), await person(browser, base)
            await seat_two(ayse, bora)
            samples["first"].append(await camera_to_frame(ayse, bora))
            await ayse.click("#talk-cam")  # off
            await bora.wait_for_selector(".seat.pos-top:not(.talk-cam)")
            await asyncio.sleep(0.5)
            samples["again"].append(await camera_to_frame(ayse, bora))
            print(json.dumps({k: v[-1] for k, v in samples.items()}), flush=True)
            for page in (ayse, bora):
                await page.context.close()
        await browser.close()
    return samples


async def main() -> None:
    """Parse the options, run, print the samples and medians."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--samples", type=int, default=7, help="tables, one sample of each kind each")
    ap.add_argument("--chromium", default="/usr/bin/chromium", help="the Chromium to drive")
    args = ap.parse_args()
    args.synchronous, args.serve_arg = "NORMAL", []
    samples = await run(args)
    medians: dict[str, Any] = {k: round(statistics.median(v)) for k, v in samples.items()}
    print("median ms: " + json.dumps(medians))


if __name__ == "__main__":
    asyncio.run(main())
