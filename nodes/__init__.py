"""Graph nodes, one per module: guard, gather, act, tools, verify, finalize."""
