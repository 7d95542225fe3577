"""The graph's nodes, one per module.

guard, gather, act, tools, propose, confirm, verify and finalize; the planner subgraph's
nodes are in `nodes.planner`.
"""
