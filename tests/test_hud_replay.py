"""The HUD in every mode: a replay on virtual time (no --realtime) reaches a paired HUD
emulator over UDP on loopback, through the real command line."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from edge_assist.cli import main
from edge_assist.outputs.hud import END_TEXT
from firmware_bridge.emulator import HudEmulator
from firmware_bridge.keys import load_key
from firmware_bridge.transports import UdpTransport

STREAM = (
    '{"meta": {"session_id": "fridge"}}\n'
    '{"t0": 0, "t1": 10, "text": "I open the fridge"}\n'
    '{"t0": 10, "t1": 20, "text": "I take two eggs out of the fridge"}\n'
    '{"t0": 20, "t1": 30, "text": "I crack the eggs into a bowl"}\n'
)


def _free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class EmulatorThread(threading.Thread):
    """`edge-assist hud-emulator`'s core, connecting as the glasses with the paired key."""

    def __init__(self, port: int, key: bytes, *, press: str = "") -> None:
        super().__init__(daemon=True)
        self.port, self.key = port, key
        self.press = press  # a button the wearer presses after each new message they see
        self.shown: list[str] = []
        self.connected = threading.Event()
        self._quit = threading.Event()

    def run(self) -> None:
        asyncio.run(self._main())

    async def _main(self) -> None:
        emu: HudEmulator
        pressed: list[asyncio.Task[object]] = []

        def on_change() -> None:
            if emu.glasses.connected:
                self.connected.set()
            cur = emu.screen.current
            if cur is not None and (not self.shown or self.shown[-1] != cur.msg.text):
                self.shown.append(cur.msg.text)
                if self.press:
                    pressed.append(
                        asyncio.get_running_loop().create_task(emu.glasses.press(self.press, "tap"))
                    )

        emu = HudEmulator(UdpTransport("127.0.0.1", self.port, mode="client"), self.key, on_change=on_change)
        await emu.start()
        try:
            # The stop comes from another thread: wait for it off the loop.
            await asyncio.to_thread(self._quit.wait)
        finally:
            await asyncio.gather(*pressed, return_exceptions=True)
            await emu.close()

    def stop(self) -> None:
        self._quit.set()
        self.join(10)


@pytest.mark.slow  # the real replay loads the offline models
@pytest.mark.timeout(300)
def test_replay_without_realtime_reaches_a_paired_hud_emulator(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    port = _free_udp_port()
    s = [
        "--set",
        f"general.data_dir={data}",
        "--set",
        "bridge.transport=udp",
        "--set",
        f"bridge.port={port}",
        "--set",
        "output.speech=off",
    ]
    assert main(["pair", *s]) == 0
    stream = tmp_path / "fridge.jsonl"
    stream.write_text(STREAM)
    emulator = EmulatorThread(port, load_key(data / "pairing.key"))
    emulator.start()
    try:
        assert (
            main(
                ["replay", str(stream), "--no-progress", "--ask", "25:what did I take out of the fridge?", *s]
            )
            == 0
        )
    finally:
        emulator.stop()
    out = capsys.readouterr()
    assert "no glasses connected" not in out.err
    spoken = [
        r["text"]
        for r in map(json.loads, (data / "decisions.jsonl").read_text().splitlines())
        if r.get("type") == "decision" and r["decision"] == "speak"
    ]
    assert spoken, "the replay said nothing: nothing to show on the HUD"
    assert emulator.connected.is_set()
    # Besides the spoken decisions, the HUD shows the task tracker's "k/n step" status line,
    # replaced when the replay ends
    # (When a task was followed: tests/test_bridge_hud.py checks the end of the status line.)
    shown = [t for t in emulator.shown if t != END_TEXT]
    assert [t for t in shown if not re.match(r"^\d+/\d+ ", t)] == spoken


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_replay_without_glasses_says_why_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    data = tmp_path / "data"
    s = [
        "--set",
        f"general.data_dir={data}",
        "--set",
        "bridge.transport=udp",
        "--set",
        f"bridge.port={_free_udp_port()}",
        "--set",
        "output.speech=off",
        "--set",
        "bridge.connect_wait_s=0.5",
    ]
    stream = tmp_path / "fridge.jsonl"
    stream.write_text(STREAM)
    # Not paired yet: the error names the key's path and the command.
    assert main(["replay", str(stream), "--no-progress", *s]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith(
        f"edge-assist: error: no pairing key at {data / 'pairing.key'}; run `edge-assist pair`"
    )
    assert main(["pair", *s]) == 0
    caplog.clear()
    assert main(["replay", str(stream), "--no-progress", "--ask", "25:what did I take out?", *s]) == 0
    hud = [
        r.getMessage()
        for r in caplog.records
        if r.name == "edge_assist.outputs.hud" and r.levelno >= logging.WARNING
    ]
    assert len(hud) == 1 and hud[0].startswith("HUD: no glasses connected on udp 127.0.0.1:")
    assert "within 0.5 s" in hud[0] and "edge-assist hud-emulator" in hud[0]


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_thanks_on_the_glasses_is_stored_as_a_label_on_the_alert(tmp_path: Path) -> None:
    data = tmp_path / "data"
    port = _free_udp_port()
    s = [
        "--set",
        f"general.data_dir={data}",
        "--set",
        "bridge.transport=udp",
        "--set",
        f"bridge.port={port}",
        "--set",
        "output.speech=off",
    ]
    assert main(["pair", *s]) == 0
    stream = tmp_path / "pan.jsonl"
    stream.write_text(
        '{"meta": {"session_id": "pan"}}\n'
        '{"t0": 0, "t1": 10, "text": "I pour oil into the pan"}\n'
        '{"t0": 10, "t1": 20, "text": "The oil in the pan caught fire"}\n'
        '{"t0": 20, "t1": 30, "text": "I put the lid on the pan"}\n'
        '{"t0": 30, "t1": 40, "text": "I put the lid on the pan"}\n'
    )
    emulator = EmulatorThread(port, load_key(data / "pairing.key"), press="thanks")
    emulator.start()
    try:
        assert main(["replay", str(stream), "--no-progress", *s]) == 0
    finally:
        emulator.stop()
    assert any(t.startswith("Fire risk") for t in emulator.shown)
    labels = [json.loads(x) for x in (data / "feedback.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [(r["signal"], r["label"], r["decision"]["sub_type"], r["decision"]["t0"]) for r in labels] == [
        ("thanks", 1, "SA", 10.0)
    ]


def test_the_emulator_prints_its_banner_once_into_a_pipe(tmp_path: Path) -> None:
    data = tmp_path / "data"
    s = ["--set", f"general.data_dir={data}", "--set", "bridge.transport=udp"]
    s += ["--set", f"bridge.port={_free_udp_port()}"]
    assert main(["pair", *s]) == 0
    done = subprocess.run(
        [sys.executable, "-m", "edge_assist", "hud-emulator", *s],
        input="/b\n/s battery=15\n/b\n/q\n",
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("connecting over udp") == 1
    assert done.stdout.count("type a question and Enter to ask") == 1
