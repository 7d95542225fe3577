"""Tools (skills) the agent can call: declarations, the registry and the packs."""
