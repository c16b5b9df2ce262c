"""User-facing errors: one line that says what went wrong and what to do.

The command line prints `edge-assist: error: <message>` and exits non-zero, without a
traceback. Raise these for anything a wearer or developer can fix (bad config, missing
model, unreadable file); let programming errors raise normally.
"""

from __future__ import annotations


class EdgeAssistError(Exception):
    """An error with a one-line, actionable message."""

    exit_code = 2

    def __init__(self, message: str) -> None:
        # One line only: the CLI and journald both show the first line.
        super().__init__(" ".join(message.split()))


class ConfigError(EdgeAssistError):
    """A config key is unknown, missing or out of range."""


class SourceError(EdgeAssistError):
    """A camera or replay file cannot be opened or read."""


class ModelError(EdgeAssistError):
    """A model file is missing, corrupt or does not match what is stored."""


class AnswerCutError(ModelError):
    """A structured answer ran out of tokens before it closed; the caller names the setting."""

    def __init__(self, message: str, max_tokens: int) -> None:
        super().__init__(message)
        self.max_tokens = max_tokens


class StoreError(EdgeAssistError):
    """The memory store cannot be opened or written (corrupt file, full disk)."""
