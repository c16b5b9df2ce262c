"""`edge-assist doctor`: required parts decide the exit code, optional ones never do."""

from __future__ import annotations

from pathlib import Path

import pytest

from edge_assist.cli import main


def _sections(out: str) -> tuple[str, str]:
    required, _, optional = out.partition("optional parts:")
    return required, optional


def test_only_optional_parts_missing_exits_0(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # No espeak-ng and no audio player on this PATH: speech is optional.
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    assert main(["doctor", "--set", f"general.data_dir={tmp_path}"]) == 0
    out = capsys.readouterr().out
    required, optional = _sections(out)
    assert "speech (espeak-ng)" in optional and "speech" not in required
    assert "model (llm)" in required and "data folder" in required
    assert "glasses bridge" in optional  # off: nothing to check
    assert "everything required is here; optional, not installed: speech (espeak-ng)" in out


def test_a_required_part_missing_exits_1_and_names_the_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A configured glasses link without its pairing key cannot start: required.
    code = main(["doctor", "--set", f"general.data_dir={tmp_path}", "--set", "bridge.transport=udp"])
    out = capsys.readouterr().out
    required, _ = _sections(out)
    assert code == 1
    assert f"no pairing key at {tmp_path / 'pairing.key'}: run `edge-assist pair`" in required
    assert "1 required part missing: glasses bridge" in out


def test_an_absent_optional_part_reads_not_installed_and_voice_is_one_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    assert main(["doctor", "--set", f"general.data_dir={tmp_path}"]) == 0
    _, optional = _sections(capsys.readouterr().out)
    assert "MISSING" not in optional
    speech = next(line for line in optional.splitlines() if "speech (espeak-ng)" in line)
    assert speech.split()[:2] == ["not", "installed"]
    voice = [line for line in optional.splitlines() if "voice input" in line]
    assert len(voice) == 1 and "voice.enabled = false" in voice[0] and "speech-to-text" in voice[0]
