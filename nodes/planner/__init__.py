"""The planner subgraph's nodes: start, draft, review, step, finish."""
