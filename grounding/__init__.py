"""grounding."""
