"""Context management: input screening, output cleaning, the history pipeline, compaction."""
