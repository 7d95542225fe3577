"""The ground floor every layer uses.

Settings (with their Langfuse, Slack and server sections), the run context, the asker, state
schema, the planner's state, report and events, run events, limits, message and text
helpers, the workspace database, model providers and observability.
"""
