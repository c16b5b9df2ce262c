"""Command-line command groups: one module per group, each with `register(subparsers)`."""
