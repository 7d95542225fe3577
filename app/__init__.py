"""The surfaces people reach agentloop through.

The `agentloop` CLI, the Slack app and the evaluation runner; each calls the graph through
`graph.runner`.
"""
