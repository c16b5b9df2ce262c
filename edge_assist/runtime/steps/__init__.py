"""The assistant's steps: the proactive step per caption (tracker, then the gate or the
LLM's passes), the answer to a wearer's question, the search they share, and the
`Verdict` each returns."""
