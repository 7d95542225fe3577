"""The surfaces people reach agentloop through.

The `agentloop` CLI, the Slack app and the evaluation runner, each calling the graph through
`graph.runner`; and the LangGraph Server's auth, which says who calls the served graphs.
"""
