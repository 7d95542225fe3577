"""Context management before each model call.

The history pipeline (turn limit, pruning, pairing repair), where the running turn starts,
and compaction with its memory flush.
"""
