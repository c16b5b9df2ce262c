"""The hardware's everyday failures, injected into the real stages, each with what held.

The same record as `injections.py`. Fakes stand only at the hardware edge: a camera backend
that unplugs, glasses on a UDP socket; the camera stage and the host's link are the real ones.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import numpy as np

from benchmarks.faults.logs import captured_logs
from edge_assist.errors import SourceError

# -- a camera that disconnects and comes back ---------------------------------------------------


class UnpluggableCamera:
    """A live camera backend (the hardware edge) that unplugs after some frames.

    Like the OpenCV and picamera2 backends, `open` waits for the device (up to their
    open timeout) and raises SourceError if it does not appear; here the device is away
    for `away_s` and the timeout is `open_timeout_s`.
    """

    live = True
    duration_s: float | None = None

    def __init__(
        self, *, frames: int, unplug_at: int, away_s: float, open_timeout_s: float = 1.0, fps: float = 10.0
    ) -> None:
        self.name = "fake-usb-camera"
        self.total = frames
        self.unplug_at = unplug_at
        self.away_s = away_s
        self.open_timeout_s = open_timeout_s
        self.fps = fps
        self.delivered = 0
        self.opens = 0
        self._t = 0.0
        self._gone_since: float | None = None

    def open(self) -> None:
        self.opens += 1
        if self._gone_since is not None:
            back_at = self._gone_since + self.away_s
            wait = back_at - time.monotonic()
            if wait > self.open_timeout_s:
                time.sleep(self.open_timeout_s)
                raise SourceError(
                    f"cannot open camera {self.name!r}: check it is plugged in (ls /dev/video*)"
                )
            time.sleep(max(0.0, wait))
            self._gone_since = None
        self._t = 0.0  # a reopened backend restarts its own time

    def read(self) -> Any:
        from edge_assist.sources.base import RawFrame

        if self.delivered >= self.total:
            return None
        if self.delivered == self.unplug_at and self.opens == 1:
            self._gone_since = time.monotonic()
            raise SourceError(f"camera {self.name!r} stopped delivering frames; check the cable and power")
        self.delivered += 1
        self._t += 1.0 / self.fps
        return RawFrame(self._t, np.zeros((8, 8, 3), np.uint8))

    def close(self) -> None:
        pass


async def _camera_run(cam: UnpluggableCamera) -> tuple[list[float], BaseException | None, Any]:
    from edge_assist.clock import RealClock
    from edge_assist.queues import DroppingQueue
    from edge_assist.sources.camera_stage import CameraStage

    q: DroppingQueue[Any] = DroppingQueue(10_000, drop="newest")
    stage = CameraStage(RealClock(), cam, q, pace=False)
    error: BaseException | None = None
    try:
        await stage.run()
    except SourceError as e:
        error = e
    times = []
    while not q.empty():
        item = await q.get()
        if hasattr(item, "stream_t"):
            times.append(item.stream_t)
    return times, error, stage


def camera_reconnects(*, away_s: float = 0.5) -> dict[str, Any]:
    """Unplugged after 20 of 50 frames, back `away_s` later (within the open timeout)."""
    cam = UnpluggableCamera(frames=50, unplug_at=20, away_s=away_s)
    with captured_logs() as lines:
        times, error, stage = asyncio.run(_camera_run(cam))
    monotonic = all(b > a for a, b in zip(times, times[1:], strict=False))
    gap = times[20] - times[19] if len(times) > 20 else None
    held = error is None and len(times) == 50 and monotonic and any("back after" in x for x in lines)
    return {
        "fault": "camera disconnects and comes back",
        "injected": f"a live camera backend stops after 20 of 50 frames and is away {away_s} s",
        "log_lines": lines,
        "outcome": {
            "frames": len(times),
            "stream_time_increasing": monotonic,
            "stream_time_gap_s": None if gap is None else round(gap, 2),
            "reconnects": stage.reconnects,
            "error": str(error) if error else None,
        },
        "held": held,
        "how_it_ended": "reconnected; frames went on, stream time kept increasing across the gap"
        if held
        else "see outcome",
    }


def camera_never_returns() -> dict[str, Any]:
    """The same unplug, but the camera stays away past the open timeout: the run stops with one line."""
    cam = UnpluggableCamera(frames=50, unplug_at=20, away_s=3600.0, open_timeout_s=0.5)
    with captured_logs() as lines:
        times, error, _ = asyncio.run(_camera_run(cam))
    held = isinstance(error, SourceError) and len(times) == 20 and any("lost" in x for x in lines)
    return {
        "fault": "camera disconnects and does not come back",
        "injected": "a live camera backend stops after 20 frames and stays away past its open timeout",
        "log_lines": [*lines, f"edge-assist: error: {error}" if error else "(no error)"],
        "outcome": {"frames_before_stop": len(times), "error": str(error) if error else None},
        "held": held,
        "how_it_ended": "stopped with the backend's one-line error after the reopen timed out"
        if held
        else "see outcome",
    }


# -- the glasses' link dropping and coming back --------------------------------------------------


async def _glasses_link() -> dict[str, Any]:
    from edge_assist.outputs.glasses_link import BridgeLink
    from firmware_bridge.endpoint import Timing
    from firmware_bridge.glasses import FakeGlasses
    from firmware_bridge.keys import generate_key
    from firmware_bridge.transports import UdpTransport

    fast = Timing(ack_timeout_s=0.05, max_retries=3, heartbeat_s=0.2, reopen_s=0.05, pending_max=32)
    key = generate_key()
    transport = UdpTransport("127.0.0.1", 0, mode="server")
    link = BridgeLink(transport, key, timing=fast)
    await link.start()
    port = transport.local_address[1]
    try:
        g = FakeGlasses(UdpTransport("127.0.0.1", port, mode="client"), key, timing=fast)
        await g.start()
        assert await g.wait_connected(5)
        before = await link.send_hud("before the drop", priority=1, duration_s=3)
        assert before is not None
        await asyncio.wait_for(before, 5)
        await g.close()  # the glasses go out of range
        loop = asyncio.get_running_loop()
        end = loop.time() + 5
        while link.connected:  # the host notices by its heartbeat timeout
            if loop.time() > end:
                raise AssertionError("the host never noticed the glasses were gone")
            await asyncio.sleep(0.02)
        during = [await link.send_hud(f"while away {i}", priority=1, duration_s=3) for i in range(3)]
        g2 = FakeGlasses(UdpTransport("127.0.0.1", port, mode="client"), key, timing=fast)
        await g2.start()  # back in range
        try:
            for f in during:
                assert f is not None
                await asyncio.wait_for(f, 5)
            shown = [(await asyncio.wait_for(g2.hud.get(), 5)).text for _ in during]
            extra = g2.hud.qsize()
            return {
                "shown_after_return": shown,
                "duplicates": extra,
                "sessions": link.stats()["sessions"],
                "pending": link.endpoint.pending,
            }
        finally:
            await g2.close()
    finally:
        await link.close()


def glasses_link_drops() -> dict[str, Any]:
    with captured_logs(logging.INFO) as lines:
        out = asyncio.run(_glasses_link())
    lines = [x for x in lines if "firmware_bridge" in x or "session" in x]
    held = (
        out["shown_after_return"] == [f"while away {i}" for i in range(3)]
        and out["duplicates"] == 0
        and out["pending"] == 0
        and any("down" in x for x in lines)
    )
    return {
        "fault": "glasses' link drops and comes back",
        "injected": "fake glasses on UDP leave (transport closed), 3 HUD texts are sent, the glasses return",
        "log_lines": lines,
        "outcome": out,
        "held": held,
        "how_it_ended": "session down logged; texts sent while away shown once each after the return"
        if held
        else "see outcome",
    }
