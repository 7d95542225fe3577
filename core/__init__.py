"""The ground floor every layer uses.

Settings, run context and state schema, events, limits, the planner's state and events, the
workspace database, model providers and observability.
"""
