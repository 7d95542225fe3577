"""Context management before each model call.

The history pipeline (turn limit, pruning, pairing repair) and compaction with its memory
flush.
"""
