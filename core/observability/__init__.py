"""Observability and audit: Langfuse traces per run, token usage, the audit tables."""
