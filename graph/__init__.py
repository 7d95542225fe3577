"""The compiled agent graph and what drives it.

The builder, the planner subgraph, routing, the runner every surface calls and the driver
under it, turn requests and results, the graphs a LangGraph Server serves (and what they
share in one process), and the same graph on a server through `RemoteGraph`.
"""
