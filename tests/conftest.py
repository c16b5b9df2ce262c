"""Shared fixtures: the real offline models, loaded once per test session.

`llm` is SmolLM2-135M through `load_llm` on the default config; `text_encoder` is
all-MiniLM-L6-v2 int8 through `load_text_encoder`. Both come from installed PyPI
packages, so no test downloads anything. Tests that use them should carry
@pytest.mark.slow (they load a real model).
"""

from __future__ import annotations

import pytest

from edge_assist.config import Config
from edge_assist.inference.base import LLM, TextEncoder
from edge_assist.inference.loader import load_llm, load_text_encoder


@pytest.fixture(scope="session")
def default_config() -> Config:
    return Config()


@pytest.fixture(scope="session")
def llm(default_config: Config) -> LLM:
    return load_llm(default_config)


@pytest.fixture(scope="session")
def text_encoder(default_config: Config) -> TextEncoder:
    return load_text_encoder(default_config)
