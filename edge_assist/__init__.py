"""edge-assist: an on-device proactive assistant for smart glasses."""

__version__ = "0.1.0"
