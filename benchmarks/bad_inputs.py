"""Bad inputs and stop signals, as a user meets them: every one under `timeout 60`.

Each bad input must end in one line (an error or a warning) naming what to do, leave what
memory held untouched, and every command must end within 5 s of SIGTERM. Writes
`benchmarks/results/bad_inputs.json` and `.md`.

    python -m benchmarks.bad_inputs
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.results_io import ROOT, write

DEMO = ROOT / "edge_assist" / "data" / "demo" / "1_34_microwaveeggsandwich.jsonl"
OUT = ROOT / "benchmarks" / "results"
CLI = [sys.executable, "-m", "edge_assist"]


def _stream(path: Path, texts: list[str]) -> Path:
    lines = [json.dumps({"meta": {"session_id": path.stem}})]
    lines += [json.dumps({"t0": 10.0 * i, "t1": 10.0 * i + 10, "text": t}) for i, t in enumerate(texts)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _run(argv: list[str]) -> dict[str, Any]:
    t0 = time.monotonic()
    p = subprocess.run(["timeout", "60", *argv], capture_output=True, text=True, cwd=ROOT)
    lines = [x for x in p.stderr.splitlines() if x.strip() and not x.startswith("replaying")]
    return {
        "exit": p.returncode,
        "seconds": round(time.monotonic() - t0, 2),
        "stderr_lines": len(lines),
        "first_line": lines[0][:300] if lines else "",
    }


def bad_inputs(tmp: Path) -> dict[str, dict[str, Any]]:
    data = tmp / "data"
    base = ["--set", f"general.data_dir={data}", "--set", "output.speech=off", "--no-progress"]
    cases: dict[str, list[str]] = {}
    huge = _stream(tmp / "huge-line.jsonl", ["I take the pan.", "x " * 5_000_000])
    cases["a 10 MB caption line"] = [*CLI, "replay", str(huge), *base]
    long = _stream(tmp / "long.jsonl", ["I take the pan.", "I whisk the eggs in the bowl " * 300])
    cases["a 8,700-character caption"] = [*CLI, "replay", str(long), *base]
    task = tmp / "big.toml"
    task.write_text(
        '[task]\nname = "big"\ntitle = "Big"\n\n'
        + "".join(f'[[step]]\nid = "s{i}"\ntext = "Step {i} of a long task"\n\n' for i in range(8000)),
        encoding="utf-8",
    )
    cases["a 400 kB task file"] = [*CLI, "tasks", "add", str(task), "--set", f"general.data_dir={data}"]
    short = tmp / "short.jsonl"
    short.write_text("\n".join(DEMO.read_text(encoding="utf-8").splitlines()[:5]) + "\n", encoding="utf-8")
    cases["a 5,000-character question"] = [
        *CLI,
        "replay",
        str(short),
        *base,
        "--ask",
        "100:" + "where is my knife " * 280,
    ]
    truncated = tmp / "truncated.jsonl"
    truncated.write_text(DEMO.read_text(encoding="utf-8")[:900], encoding="utf-8")
    cases["a truncated caption file"] = [*CLI, "replay", str(truncated), *base]
    cases["a wrong config key"] = [*CLI, "replay", str(DEMO), *base, "--set", "memory.no_such_key=1"]
    out: dict[str, dict[str, Any]] = {}
    for name, argv in cases.items():
        out[name] = _run(argv)
        print(f"{name}: {out[name]}", flush=True)
    return out


def _stop_after(argv: list[str], delay_s: float) -> dict[str, Any]:
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    time.sleep(delay_s)
    t0 = time.monotonic()
    if p.poll() is not None:
        return {"delay_s": delay_s, "ended_before_signal": True}
    p.send_signal(signal.SIGTERM)
    try:
        p.wait(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    return {"delay_s": delay_s, "exit": p.returncode, "seconds_to_end": round(time.monotonic() - t0, 2)}


def stop_signals(tmp: Path) -> dict[str, list[dict[str, Any]]]:
    commands = {
        "replay": [*CLI, "replay", str(DEMO), "--no-progress", "--set", "output.speech=off"],
        "memory ingest": [*CLI, "memory", "ingest", str(DEMO)],
        "ask": [*CLI, "ask", "what did I do with the English muffin?"],
        "eval run": [*CLI, "eval", "run", "--split", "val", "--rows", "ours", "--limit", "1", "--no-plots"]
        + ["--judge-max-pairs", "0", "--out", str(tmp / "eval")],
    }
    out: dict[str, list[dict[str, Any]]] = {}
    for name, argv in commands.items():
        out[name] = []
        for i, delay in enumerate((2.0, 6.0, 12.0)):
            d = tmp / f"stop-{name.replace(' ', '-')}-{i}"
            r = _stop_after([*argv, "--set", f"general.data_dir={d}"], delay)
            out[name].append(r)
            print(f"SIGTERM {name} after {delay} s: {r}", flush=True)
    return out


def markdown(res: dict[str, Any]) -> str:
    lines = [
        "# Bad inputs and stop signals",
        "",
        f"Command: `{res['command']}` at {res['commit']}; load {res['machine'].get('load_avg_1m')}.",
        "",
        "| input | exit | seconds | stderr lines | what the user reads |",
        "|---|---|---|---|---|",
    ]
    for name, r in res["bad_inputs"].items():
        first = r["first_line"].replace("|", "\\|")[:160]
        lines.append(f"| {name} | {r['exit']} | {r['seconds']} | {r['stderr_lines']} | {first} |")
    lines += ["", "| command | SIGTERM after | exit | seconds to end |", "|---|---|---|---|"]
    for name, runs in res["stop_signals"].items():
        for r in runs:
            if r.get("ended_before_signal"):
                lines.append(f"| {name} | {r['delay_s']} s | (ended before) | - |")
            else:
                lines.append(f"| {name} | {r['delay_s']} s | {r['exit']} | {r['seconds_to_end']} |")
    worst = max(
        (r.get("seconds_to_end", 0.0) for runs in res["stop_signals"].values() for r in runs), default=0.0
    )
    lines += ["", f"Slowest end after SIGTERM: {worst} s (bound: 5 s)."]
    return "\n".join(lines) + "\n"


def main() -> int:
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        res = {"bad_inputs": bad_inputs(tmp), "stop_signals": stop_signals(tmp)}
    path = write(OUT / "bad_inputs.json", res, "python -m benchmarks.bad_inputs")
    stamped = json.loads(path.read_text(encoding="utf-8"))
    (OUT / "bad_inputs.md").write_text(markdown(stamped), encoding="utf-8")
    print(f"wrote {path} and bad_inputs.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
