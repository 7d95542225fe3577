"""agentloop application layer: settings, model providers, CLI and (later) Slack."""
