"""Settings: TOML + overrides, validated and frozen; every error names its key."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from edge_assist.config import Config, build_config, load_config, parse_override, render_toml, tomllib
from edge_assist.errors import ConfigError


def test_defaults_round_trip_through_rendered_toml() -> None:
    cfg = Config()
    assert build_config(tomllib.loads(render_toml(cfg))) == cfg


def test_file_and_overrides_merge(tmp_path: Path) -> None:
    f = tmp_path / "edge-assist.toml"
    f.write_text('[segmenter]\nclip_s = 5\n[source]\nkind = "video"\n')
    cfg = load_config(f, {"segmenter.keyframes_per_clip": 4, "policy.cooldown_s": {"ER": 3}})
    assert cfg.segmenter.clip_s == 5.0 and cfg.segmenter.keyframes_per_clip == 4
    assert cfg.source.kind == "video"
    # A table override changes one entry and keeps the other defaults.
    assert (
        cfg.policy.cooldown_s["ER"] == 3.0
        and cfg.policy.cooldown_s["NSG"] == Config().policy.cooldown_s["NSG"]
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.segmenter.clip_s = 1.0  # type: ignore[misc]


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ("[source]\nfpz = 3\n", "source.fpz"),
        ("[sourse]\nfps = 3\n", "sourse"),
        ("[source]\nfps = 0\n", "source.fps"),
        ('[source]\nkind = "webcam"\n', "source.kind"),
        ("[segmenter]\nkeyframes_per_clip = 2.5\n", "segmenter.keyframes_per_clip"),
        ('[output]\nconsole = "yes"\n', "output.console"),
        ("[policy]\ncooldown_s = { ER = -1 }\n", "policy.cooldown_s.ER"),
        ("source = 3\n", "source"),
        # TOML's nan and inf are valid floats; no setting means them (a range check lets nan through).
        ("[source]\nfps = nan\n", "source.fps' must be a finite number"),
        ("[retrieval]\ncontext_chars = inf\n", "retrieval.context_chars"),
        ("[scheduler]\nstep_budget_s = -inf\n", "scheduler.step_budget_s"),
        ("[policy]\ncooldown_s = { ER = nan }\n", "policy.cooldown_s.ER' must be a finite number"),
    ],
)
def test_bad_values_name_the_key(tmp_path: Path, body: str, needle: str) -> None:
    f = tmp_path / "bad.toml"
    f.write_text(body)
    with pytest.raises(ConfigError) as e:
        load_config(f)
    msg = str(e.value)
    assert needle in msg and "\n" not in msg
    if "finite" in needle:
        assert str(f) in msg  # the file, since a config file has no line numbers for keys


def test_non_finite_override_names_the_key_not_the_file() -> None:
    with pytest.raises(ConfigError) as e:
        load_config(None, dict([parse_override("source.open_timeout_s=inf")]))
    assert "source.open_timeout_s' must be a finite number" in str(e.value)


def test_unknown_override_and_malformed_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="memory.windowz"):
        load_config(None, {"memory.windowz": 3})
    f = tmp_path / "broken.toml"
    f.write_text("[source\nfps = 3")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(f)
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "missing.toml")


def test_override_values_are_read_as_toml() -> None:
    assert parse_override("source.fps=2.5") == ("source.fps", 2.5)
    assert parse_override("output.console=false") == ("output.console", False)
    assert parse_override("source.path=/tmp/a b.mp4") == ("source.path", "/tmp/a b.mp4")
    with pytest.raises(ConfigError):
        parse_override("source.fps")


def test_memory_profiles() -> None:
    assert Config().memory_windows_s == (10.0, 60.0, 300.0)
    assert build_config({"memory": {"profile": "all-day"}}).memory_windows_s == (30.0, 300.0, 3600.0)


def test_cli_config_error_is_one_line_without_traceback() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "edge_assist", "config", "show", "--set", "source.fpz=3"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 2
    assert r.stderr.strip().count("\n") == 0 and "source.fpz" in r.stderr and "Traceback" not in r.stderr


def test_shipped_example_config_is_current() -> None:
    """edge-assist.example.toml documents every key; regenerate with `edge-assist config show --defaults`."""
    example = Path(__file__).resolve().parents[1] / "edge-assist.example.toml"
    assert example.read_text() == render_toml(Config())
