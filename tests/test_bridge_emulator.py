"""`edge-assist pair` and the HUD emulator's core, over a real loopback socket."""

from __future__ import annotations

import asyncio
import stat

import pytest

from edge_assist.cli import main
from edge_assist.events import ButtonEvent, GlassesStatus, UserQuery
from edge_assist.outputs.glasses_link import BridgeLink
from firmware_bridge.crypto import fingerprint
from firmware_bridge.emulator import HudEmulator, Screen, render
from firmware_bridge.endpoint import Timing
from firmware_bridge.keys import format_key, load_key
from firmware_bridge.messages import HudText
from firmware_bridge.transports import UdpTransport

FAST = Timing(ack_timeout_s=0.05, max_retries=3, heartbeat_s=0.2, reopen_s=0.05)
pytestmark = pytest.mark.timeout(30)


def test_pair_creates_a_private_key_and_prints_it(tmp_path, capsys) -> None:
    data = f"general.data_dir={tmp_path}"
    assert main(["pair", "--set", data, "--set", "bridge.transport=udp"]) == 0
    out = capsys.readouterr().out
    path = tmp_path / "pairing.key"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    key = load_key(path)
    assert format_key(key) in out and fingerprint(key) in out and "udp 127.0.0.1:47800" in out
    assert main(["pair", "--set", data]) == 2  # refuses to overwrite without --force
    assert "--force" in capsys.readouterr().err
    assert main(["pair", "--set", data, "--show"]) == 0
    assert format_key(key) in capsys.readouterr().out
    assert main(["pair", "--set", data, "--force"]) == 0
    assert load_key(path) != key


def test_screen_priorities_and_expiry() -> None:
    s = Screen()
    s.offer(HudText("tip", 1, 5.0), now=0.0)
    s.offer(HudText("background", 0, 5.0), now=1.0)  # lower: waits
    assert s.current is not None and s.current.msg.text == "tip" and len(s.waiting) == 1
    s.offer(HudText("FIRE", 3, 4.0), now=2.0)  # higher: replaces at once
    assert s.current.msg.text == "FIRE"
    assert not s.expire(5.0)
    assert s.expire(6.0) and s.current.msg.text == "background"
    assert s.expire(11.0) and s.current is None
    text = render(s, connected=True, now=11.0)
    assert "nothing on screen" in text and "connected" in text


async def test_emulator_core_over_udp() -> None:
    key = bytes(range(32))
    server = UdpTransport("127.0.0.1", 0, mode="server")
    link = BridgeLink(server, key, timing=FAST)
    await link.start()
    buttons = link.subscribe(ButtonEvent)
    now = [100.0]
    changes = []
    emu = HudEmulator(
        UdpTransport("127.0.0.1", server.local_address[1], mode="client"),
        key,
        timing=FAST,
        clock=lambda: now[0],
        on_change=lambda: changes.append(1),
    )
    await emu.start()
    try:
        assert await link.wait_connected(5)
        fut = await link.send_hud("Turn the burner down", priority=3, duration_s=6)
        assert fut is not None
        await asyncio.wait_for(fut, 5)
        for _ in range(100):
            if emu.screen.current is not None:
                break
            await asyncio.sleep(0.02)
        screen = emu.render()
        assert "Turn the burner down" in screen and "SAFETY" in screen and "6 s" in screen
        assert changes

        assert await emu.handle("where is the salt?")
        assert await emu.handle("/p")
        assert await emu.handle("/r")
        assert await emu.handle("/s battery=12 thermal=warm charging=no temp=41")
        assert await emu.handle("/s battery=lots")  # bad input: an error line, no crash
        q = await asyncio.wait_for(link.inbound.get(), 5)
        assert isinstance(q, UserQuery) and (q.text, q.source) == ("where is the salt?", "bridge")
        pressed = [await asyncio.wait_for(buttons.get(), 5) for _ in range(2)]
        assert [b.action for b in pressed] == ["press", "release"]
        for _ in range(100):
            if link.status is not None:
                break
            await asyncio.sleep(0.02)
        assert isinstance(link.status, GlassesStatus) and link.status.battery_pct == 12.0
        assert link.status.budget_factor == 0.5
        assert any("error" in line for line in emu.screen.log)
        assert not await emu.handle("/q")
    finally:
        await emu.close()
        await link.close()
