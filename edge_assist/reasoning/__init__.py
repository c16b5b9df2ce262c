"""The reasoner passes, prompts, service taxonomy and the intervention policy. Sees only
what the scheduler hands it (current caption, short-term context, retrieved context)."""
