"""The tools (skills) the agent can call.

How a tool declares its contract, the registry, preselection, proposals and the decisions
and receipts kept for them (exactly once), what a thread reply means for a proposal, name
resolution, stored large results, and the packs: agency, calendar, hospitality, memory,
plan and meta.
"""
