"""The wearer's long-term memory: sqlite-vec store (captions, summaries, vectors),
the multi-scale roll-up, the Kùzu entity graph and the visual archive. Uses
`inference` and nothing above it."""
