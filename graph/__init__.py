"""The agent graph: state, per-run context, limits, events, builder, routing and the runner."""
