"""The workspace and audit database.

SQLAlchemy models by area, the engine and its stale-connection checks, migrations, search,
who a person is to the workspace, and the demo data and its seed.
"""
