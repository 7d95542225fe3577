"""The LangGraph Server surface: who may call the served graphs, and what they may change."""
