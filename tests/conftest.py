"""Shared fixtures: the real offline models, loaded once per test session.

`llm` is SmolLM2-135M through `load_llm` on the default config; `text_encoder` is
all-MiniLM-L6-v2 int8 through `load_text_encoder`. Both come from installed PyPI
packages, so no test downloads anything. Tests that use them carry @pytest.mark.slow;
tests that run for minutes carry soak, faults or heavy, which `make test` leaves to
`make test-all` (pyproject.toml lists the markers). `server` is the scripted
OpenAI-compatible chat server of tests/fakes.py, one per test.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from edge_assist.config import Config
from edge_assist.inference.base import LLM, ImageEncoder, TextEncoder
from edge_assist.inference.loader import load_image_encoder, load_llm, load_text_encoder
from tests.fakes import ChatServer


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer() as s:
        yield s


@pytest.fixture(scope="session")
def default_config() -> Config:
    return Config()


def closed_after(model: LLM) -> Iterator[LLM]:
    """Yield a loaded model, then close it while the interpreter is whole: left to the
    garbage collector at exit, llama-cpp-python's destructor ran after its own module was
    torn down and printed a TypeError traceback after every test run. Closing also takes it
    out of the loader's cache, so a later `load_llm` gets a live one."""
    yield model
    close = getattr(model, "close", None)
    if close is not None:
        close()


@pytest.fixture(scope="session", autouse=True)
def _models_closed_at_the_end() -> Iterator[None]:
    """Models that tests loaded through `load_*` and left in the loader's cache are closed
    before the interpreter exits (see `closed_after`)."""
    yield
    from edge_assist.inference.loader import close_all

    close_all()


@pytest.fixture(scope="session")
def llm(default_config: Config) -> Iterator[LLM]:
    yield from closed_after(load_llm(default_config))


@pytest.fixture(scope="session")
def text_encoder(default_config: Config) -> TextEncoder:
    return load_text_encoder(default_config)


@pytest.fixture(scope="session")
def image_encoder(tmp_path_factory: pytest.TempPathFactory, default_config: Config) -> ImageEncoder:
    """A tiny generated CLIP-shaped ONNX pair (random weights, 32-d): no CLIP model ships
    offline. Real onnxruntime computation; similarities are not meaningful."""
    from edge_assist.inference.manifest import get_entry, resolve_file
    from edge_assist.inference.tiny_models import write_manifest, write_tiny_clip

    d = tmp_path_factory.mktemp("tiny-clip")
    image, text = write_tiny_clip(d, dim=32)
    tok = resolve_file(default_config, get_entry(default_config, "minilm-l6-int8"), "tokenizer")
    write_manifest(
        d,
        {
            "tiny-clip": {
                "role": "image-encoder",
                "image_size_px": 32,
                "files": {"image": image, "text": text, "tokenizer": tok},
            }
        },
    )
    enc = load_image_encoder(
        default_config.replace(**{"models.dir": str(d), "models.image_encoder": "tiny-clip"})
    )
    assert enc is not None
    return enc


@pytest.fixture(scope="session")
def tiny_vlm_dir(tmp_path_factory: pytest.TempPathFactory, default_config: Config):  # type: ignore[no-untyped-def]
    """A models folder with a VLM made of SmolLM2 plus a generated LLaVA-style projector
    (random weights): the real multimodal path, meaningless captions. Select it with
    models.dir=<this> and models.vlm="tiny-vlm"."""
    from edge_assist.inference.manifest import get_entry, resolve_file
    from edge_assist.inference.tiny_models import write_tiny_mmproj

    llm_path = resolve_file(default_config, get_entry(default_config, "smollm2-135m-q4"), "model")
    d = tmp_path_factory.mktemp("vlm-models")
    write_tiny_mmproj(d / "tiny-mmproj.gguf")
    (d / "manifest.toml").write_text(
        '[model.tiny-vlm]\nrole = "vlm"\nlicence = "test"\n'
        f'[[model.tiny-vlm.files]]\nkind = "model"\nname = "llm.gguf"\npath = "{llm_path}"\n'
        '[[model.tiny-vlm.files]]\nkind = "mmproj"\nname = "tiny-mmproj.gguf"\npath = "tiny-mmproj.gguf"\n'
    )
    return d


@pytest.fixture(autouse=True)
def _keep_umask() -> Iterator[None]:
    """`edge_assist.cli.main` makes its process private (umask 077); a test that calls it
    in-process must not change the mode of every file the tests after it create."""
    old = os.umask(0o077)
    os.umask(old)
    yield
    os.umask(old)
