"""The workspace and audit database: SQLAlchemy models, engine, migrations and seed data."""
