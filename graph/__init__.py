"""The compiled agent graph and what drives it.

The builder, the planner subgraph, routing, the runner every surface calls, turn results, and
the graphs a LangGraph Server serves.
"""
