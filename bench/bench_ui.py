"""The live view's cost to the control cycle: cycle duration p99 with two pages connected vs none.

One run, one robot: the demo (colbert/demo.act) on the embedded simulator in ``simple``, paced by the
live view's clock (real time x SPEED), with the live view served on loopback. The run alternates
blocks of cycles with no page and with two WebSocket clients connected (reading every frame, in a
separate process, as browsers are), so drift in the machine's load falls on both sides alike. A
cycle's duration is the time its phases take (``Scheduler.run_cycle``), as the run summary reports.

Target (issue 12): p99 with two pages / p99 with none <= 1.10. Also reported: the frame size and rate
at the default display period (every 2 cycles: 5 frames per second of robot time).
``--occgrid`` runs the same with ``sfOCCGRID`` on (the grid's task in both halves; its image, copied in
the cycle at most every ``GRID_EVERY`` frames, only with pages).
Run from the project root: ``python bench/bench_ui.py [--occgrid]``.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import multiprocessing.queues
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import aiohttp
import numpy as np

from saphira.colbert.evaluator import Evaluator
from saphira.robot import Robot
from saphira.sim.embedded import attach_simulator
from saphira.ui.liveview import SteppedClock, serve

DEMO = Path(__file__).resolve().parents[1] / "colbert" / "demo.act"
SPEED = 4.0
BLOCK = 150
ROUNDS = 5
PAGES = 2


class Pages:
    """``PAGES`` WebSocket clients in a process of their own (as browsers are), counting frames and bytes."""

    def __init__(self, url: str) -> None:
        base, token = url.split("/?token=")
        ctx = multiprocessing.get_context("spawn")
        self.stop = ctx.Event()
        self.results: multiprocessing.queues.Queue[tuple[int, int]] = ctx.Queue()
        self.process = ctx.Process(target=_pages_main, args=(f"{base.replace('http', 'ws', 1)}/ws?token={token}",
                                                              self.stop, self.results), daemon=True)  # fmt: skip
        self.process.start()

    def close(self) -> tuple[int, int]:
        """Disconnect; (frames, bytes) received by all pages."""
        self.stop.set()
        frames, size = self.results.get(timeout=30)
        self.process.join(timeout=30)
        return frames, size


def _pages_main(ws_url: str, stop: Any, results: Any) -> None:
    counts = [0, 0]

    async def client(session: aiohttp.ClientSession) -> None:
        async with session.ws_connect(ws_url) as ws:
            while not stop.is_set():
                try:
                    msg = await ws.receive(timeout=0.2)
                except TimeoutError:
                    continue
                if msg.type != aiohttp.WSMsgType.TEXT:
                    break
                if msg.data.startswith('{"type":"frame"'):
                    counts[0] += 1
                    counts[1] += len(msg.data)

    async def run() -> None:
        async with aiohttp.ClientSession() as session:
            await asyncio.gather(*(client(session) for _ in range(PAGES)))

    asyncio.run(run())
    results.put((counts[0], counts[1]))


def run_block(robot: Robot, cycles: int) -> list[float]:
    """Run ``cycles`` paced cycles; the duration of each one's phases in ms."""
    durations = []
    for _ in range(cycles):
        t0 = time.perf_counter()
        robot.scheduler.run_cycle()
        durations.append((time.perf_counter() - t0) * 1000.0)
        robot.clock.wait_next()
    return durations


def run_until(robot: Robot, condition: object) -> None:
    assert callable(condition)
    while not condition():
        robot.scheduler.run_cycle()
        robot.clock.wait_next()


def main() -> None:
    robot = Robot(SteppedClock(speed=SPEED))
    sim = attach_simulator(robot, "simple", "p3dx")
    evaluator = Evaluator(robot, read_init=False, output=lambda text: None)
    view = serve(robot, evaluator, ("127.0.0.1", 0), sim=sim, say=lambda text: None)
    assert view.server is not None
    server = view.server
    assert evaluator.load(DEMO)
    grid = "--occgrid" in sys.argv[1:]
    if grid:
        evaluator.eval_text("sfSetDisplayState(sfOCCGRID, 1)")
    run_block(robot, 50)  # warm up: the demo under way, the buffers filled
    alone: list[float] = []
    watched: list[float] = []
    frames = size = count = 0
    robot_seconds = 0.0
    for _ in range(ROUNDS):
        alone += run_block(robot, BLOCK)
        pages = Pages(server.url)
        run_until(robot, lambda: server.pages == PAGES)
        published = server.frames_published
        watched += run_block(robot, BLOCK)
        frames += server.frames_published - published
        received, received_bytes = pages.close()
        run_until(robot, lambda: server.pages == 0)
        size += received_bytes
        count += received
        robot_seconds += BLOCK * robot.clock.period
    view.stop()
    p99_alone, p99_watched = np.percentile(alone, 99), np.percentile(watched, 99)
    print(
        f"cycles: {len(alone)} with no page, {len(watched)} with {PAGES} pages (demo.act, {SPEED:g}x real time"
        f"{', occupancy grid on' if grid else ''})"
    )
    for what, durations, p99 in (("no page", alone, p99_alone), (f"{PAGES} pages", watched, p99_watched)):
        print(f"  {what:8s} p50 {statistics.median(durations):.2f} ms  p99 {p99:.2f} ms  max {max(durations):.2f} ms")
    ratio = p99_watched / p99_alone
    print(f"  p99 ratio {ratio:.2f} (target <= 1.10: {'met' if ratio <= 1.10 else 'NOT met'})")
    print(f"  overruns of the {robot.clock.period * 1000 / SPEED:.0f} ms slot: {robot.clock.overruns}")
    print(
        f"frames: {frames / robot_seconds:.1f} per second of robot time (display period {view.display.period} "
        f"cycles) to each page, mean {size / max(count, 1) / 1024:.1f} KiB each"
    )


if __name__ == "__main__":
    main()
