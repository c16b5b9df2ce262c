"""Runnable benchmarks: `python -m benchmarks.<name>` writes benchmarks/results/<name>.json."""
