"""Run every fault injection and write `benchmarks/results/faults/` (report.md, results.json).

    python -m benchmarks.faults.run [--kills 20] [--seed 13] [--only NAME ...] [--out DIR]

The kill loop and the full-disk and model-file runs start the real CLI with the offline
models; the rest run in process. Exit code 1 if any fault did not hold.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks import results_io
from benchmarks.faults import hardware, injections
from benchmarks.faults.kill_loop import kill_loop


def _kill(work: Path, kills: int, seed: int) -> dict[str, Any]:
    r = kill_loop(work, kills=kills, seed=seed)
    return {
        "fault": f"kill -9 at random points of ingest, {r['kills']} times",
        "injected": "SIGKILL to `edge-assist replay` 0-8 s (random) after it stored a new caption, "
        f"{r['kills']} rounds, then a run to the end",
        "log_lines": [],
        "outcome": r,
        "held": r["held"],
        "how_it_ended": "every run resumed where memory ended; nothing lost, nothing twice, stores consistent"
        if r["held"]
        else "see outcome",
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kills", type=int, default=20)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--out", default="benchmarks/results/faults")
    args = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="edge-assist-faults-"))
    faults: dict[str, Callable[[], dict[str, Any]]] = {
        "camera": hardware.camera_reconnects,
        "camera-gone": hardware.camera_never_returns,
        "glasses-link": hardware.glasses_link_drops,
        "corrupt-keyframe": lambda: injections.corrupt_keyframe(work / "keyframe"),
        "clock-backwards": lambda: injections.clock_backwards(work / "clock"),
        "full-disk": lambda: injections.full_disk(work / "disk"),
        "model-disappears": lambda: injections.model_disappears(work / "model"),
        "kill-loop": lambda: _kill(work / "kill", args.kills, args.seed),
    }
    results: dict[str, Any] = {}
    for name, fn in faults.items():
        if args.only is not None and name not in args.only:
            continue
        t = time.perf_counter()
        try:
            r = fn()
        except Exception as e:  # noqa: BLE001 - a harness failure is a result too
            r = {"fault": name, "held": False, "how_it_ended": f"harness failed: {type(e).__name__}: {e}"}
        r["wall_s"] = round(time.perf_counter() - t, 1)
        results[name] = r
        print(
            f"{name}: {'held' if r['held'] else 'DID NOT HOLD'} ({r['wall_s']} s): {r['how_it_ended']}",
            flush=True,
        )
    command = "python -m benchmarks.faults.run " + " ".join(argv if argv is not None else sys.argv[1:])
    for r in results.values():
        r["command"] = command
    out = Path(args.out)
    # A run of some faults (--only) updates their entries and keeps the others'.
    previous = out / "results.json"
    merged = json.loads(previous.read_text(encoding="utf-8"))["faults"] if previous.exists() else {}
    merged.update(results)
    commands = sorted({r.get("command", command) for r in merged.values()})
    results_io.write(previous, {"commands": commands, "faults": merged}, command)
    (out / "report.md").write_text(report(commands, merged), encoding="utf-8")
    print(f"wrote {out}/results.json and report.md")
    return 0 if all(r["held"] for r in results.values()) else 1


def report(commands: list[str], results: dict[str, Any]) -> str:
    lines = [
        "# Fault injection",
        "",
        "Made by "
        + ", ".join(f"`{c}`" for c in commands)
        + f" (last on {time.strftime('%Y-%m-%d')}; each fault's "
        "command and every detail in `results.json`).",
        "",
        "| fault | injected | held | how it ended | log line(s) |",
        "|---|---|---|---|---|",
    ]
    for r in results.values():
        logs = "<br>".join(f"`{x[:160]}`" for x in r.get("log_lines", [])[-3:]) or "-"
        lines.append(
            f"| {r['fault']} | {r.get('injected', '')} | {'yes' if r['held'] else '**no**'} | "
            f"{r['how_it_ended']} | {logs} |"
        )
    kill = results.get("kill-loop", {}).get("outcome")
    if kill:
        lines += [
            "",
            "## Kill loop",
            "",
            f"{kill['kills']} SIGKILLs over {kill['captions_in_stream']} captions "
            "(three real CaptainCook4D recordings stitched into one session), "
            "then one run to the end; after it:",
            "",
            "```",
            json.dumps(kill["consistency"], indent=1),
            "```",
            "",
            "| round | first new clip after (s) | killed after a further (s) | clips before | clips after |",
            "|---|---|---|---|---|",
            *[
                f"| {r['round']} | {r['first_new_clip_after_s']} | {r['killed_after_further_s']} "
                f"| {r['clips_before']} | {r['clips_after']} |"
                for r in kill["rounds"]
            ],
        ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
