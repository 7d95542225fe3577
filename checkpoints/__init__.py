"""Checkpoint savers (memory, SQLite, Postgres) and their set-up."""
