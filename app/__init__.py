"""The surfaces people reach agentloop through.

The `agentloop` CLI, the Slack app and the evaluation runner, each calling the graph through
`graph.runner`; and the LangGraph Server's side of the served graphs: its auth (who calls
them), who may edit a thread's state, and the messages a run interrupting another keeps.
"""
