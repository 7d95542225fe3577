"""The `agentloop` command line."""
