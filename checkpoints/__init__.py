"""Where a thread's steps are kept.

The checkpoint savers (memory, SQLite, PostgreSQL), their set-up and pool, direct reads of
their tables, retention, and the lanes that run one turn per thread at a time.
"""
