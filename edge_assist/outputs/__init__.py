"""Where decisions go: the JSONL decision log, the console, speech and the HUD."""
