"""screening."""
