"""A pack whose module fails as it is imported (a missing dependency, a typo)."""

raise ImportError("No module named 'acme_sdk'")
