"""`edge-assist models list | pull | verify` against a real local HTTP server that
supports Range requests and can cut a transfer short."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from edge_assist.cli import main
from tests.fakes import FileServer

PAYLOAD = bytes(range(256)) * 4096 * 3  # 3 MiB
SHA = hashlib.sha256(PAYLOAD).hexdigest()


@pytest.fixture()
def file_server() -> Iterator[tuple[FileServer, str]]:
    with FileServer(PAYLOAD) as server:
        yield server, server.url


def models_dir(tmp_path: Path, url: str, sha: str = SHA, size: int | None = len(PAYLOAD)) -> Path:
    size_line = f"size = {size}\n" if size is not None else ""
    (tmp_path / "manifest.toml").write_text(
        '[model.tiny-llm]\nrole = "llm"\nlicence = "test"\n'
        f'[[model.tiny-llm.files]]\nkind = "model"\nname = "tiny.gguf"\nurl = "{url}/tiny.gguf"\n'
        f'{size_line}sha256 = "{sha}"\n'
    )
    return tmp_path


def run(*argv: str) -> int:
    return main(list(argv))


def test_pull_resumes_after_interruption(
    tmp_path: Path, file_server: tuple[FileServer, str], capsys: pytest.CaptureFixture[str]
) -> None:
    state, url = file_server
    d = models_dir(tmp_path, url)
    state.cut_next_at = 1_000_000
    assert run("models", "pull", "tiny-llm", "-q", "--set", f"models.dir={d}") == 2
    err = capsys.readouterr().err
    assert "again to resume" in err and err.count("\n") == 1
    part = d / "tiny-llm" / "tiny.gguf.part"
    assert part.stat().st_size == 1_000_000 and not (d / "tiny-llm" / "tiny.gguf").exists()

    assert run("models", "pull", "tiny-llm", "-q", "--set", f"models.dir={d}") == 0
    assert state.ranges[-1] == "bytes=1000000-"
    final = d / "tiny-llm" / "tiny.gguf"
    assert final.read_bytes() == PAYLOAD and not part.exists()

    assert run("models", "verify", "tiny-llm", "--set", f"models.dir={d}") == 0
    assert "ok" in capsys.readouterr().out
    # A second pull sees the file is in place and fetches nothing.
    n = len(state.ranges)
    assert run("models", "pull", "tiny-llm", "-q", "--set", f"models.dir={d}") == 0
    assert len(state.ranges) == n


def test_wrong_sha_is_refused_and_keeps_old_file(
    tmp_path: Path, file_server: tuple[FileServer, str], capsys: pytest.CaptureFixture[str]
) -> None:
    _, url = file_server
    d = models_dir(tmp_path, url, sha="0" * 64)
    old = d / "tiny-llm" / "tiny.gguf"
    old.parent.mkdir()
    old.write_bytes(b"previous file")
    assert run("models", "pull", "tiny-llm", "-q", "--set", f"models.dir={d}") == 2
    err = capsys.readouterr().err
    assert "does not match the manifest" in err and err.count("\n") == 1
    assert old.read_bytes() == b"previous file"
    assert not (d / "tiny-llm" / "tiny.gguf.part").exists()
    assert run("models", "verify", "tiny-llm", "--set", f"models.dir={d}") == 2


def test_unknown_sha_is_reported_not_invented(
    tmp_path: Path, file_server: tuple[FileServer, str], capsys: pytest.CaptureFixture[str]
) -> None:
    _, url = file_server
    d = models_dir(tmp_path, url, sha="unknown", size=None)
    assert run("models", "pull", "tiny-llm", "-q", "--set", f"models.dir={d}") == 0
    assert run("models", "verify", "tiny-llm", "--set", f"models.dir={d}") == 0
    out = capsys.readouterr().out
    assert "unknown-sha" in out and SHA in out


def test_missing_model_names_pull_command(
    tmp_path: Path, file_server: tuple[FileServer, str], capsys: pytest.CaptureFixture[str]
) -> None:
    _, url = file_server
    d = models_dir(tmp_path, url)
    assert run("config", "show", "--set", f"models.dir={d}") == 0  # sanity: overrides parse
    capsys.readouterr()
    from edge_assist.config import Config
    from edge_assist.errors import ModelError
    from edge_assist.inference.loader import load_llm

    with pytest.raises(ModelError, match="edge-assist models pull tiny-llm"):
        load_llm(Config().replace(**{"models.dir": str(d), "models.llm": "tiny-llm"}))


def test_list_and_verify_builtin(capsys: pytest.CaptureFixture[str]) -> None:
    assert run("models", "list") == 0
    out = capsys.readouterr().out
    assert "smollm2-135m-q4" in out and "minilm-l6-int8" in out and "smolvlm-256m" in out
    assert run("models", "verify", "smollm2-135m-q4", "minilm-l6-int8") == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3 and all(line.startswith("ok ") for line in lines)


def test_unknown_model_is_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert run("models", "pull", "no-such-model") == 2
    assert "not in the manifest" in capsys.readouterr().err


def test_the_manifest_ships_inside_the_package() -> None:
    """A non-editable install has no models/ directory: the wheel carries the same file."""
    from edge_assist.inference import manifest

    assert manifest._PACKAGED_MANIFEST.read_bytes() == manifest._SOURCE_MANIFEST.read_bytes()
    assert "edge_assist" in str(manifest._PACKAGED_MANIFEST)


def test_list_shows_declared_or_measured_sizes_and_cuts_a_long_licence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    long_licence = "A Very Long Community Licence Agreement, version 3"
    (tmp_path / "manifest.toml").write_text(
        '[model.pinned]\nrole = "llm"\nlicence = "MIT"\n'
        '[[model.pinned.files]]\nkind = "model"\nname = "a.gguf"\nurl = "http://x/a.gguf"\nsize = 5000000\n'
        f'[model.here]\nrole = "vlm"\nlicence = "{long_licence}"\nhardware = "any CPU"\n'
        '[[model.here.files]]\nkind = "model"\nname = "b.gguf"\nurl = "http://x/b.gguf"\n'
        '[model.away]\nrole = "vlm"\nlicence = "MIT"\n'
        '[[model.away.files]]\nkind = "model"\nname = "c.gguf"\nurl = "http://x/c.gguf"\n'
    )
    (tmp_path / "here").mkdir()
    (tmp_path / "here" / "b.gguf").write_bytes(b"\0" * 3_000_000)
    assert run("models", "list", "--set", f"models.dir={tmp_path}") == 0
    rows = {line.split()[0]: line for line in capsys.readouterr().out.splitlines() if line.strip()}
    assert " 5 MB  no " in rows["pinned"]  # declared in the manifest
    assert " 3 MB  yes " in rows["here"]  # not declared, measured on disk
    assert " unknown  no " in rows["away"] and "size unknown" in rows["size"]
    header = rows["name"]
    cut = rows["here"][header.index("licence") : header.index("hardware")]
    assert cut == long_licence[:21] + "… " and rows["here"].endswith(" any CPU")
