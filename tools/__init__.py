"""The tools (skills) the agent can call.

How a tool declares its contract, the registry, policy and proposals, name resolution,
preselection, and the packs.
"""
