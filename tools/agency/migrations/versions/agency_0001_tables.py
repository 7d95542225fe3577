"""The agency pack's tables: clients, brands, assignments, tasks, the KB, client memory notes.

The KB gets full-text search (FTS5 on SQLite, a tsvector column on PostgreSQL).

Revision ID: agency_0001
Revises:
Create Date: 2026-12-02 02:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "agency_0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = ("agency",)
depends_on: str | Sequence[str] | None = "0001"


def upgrade() -> None:
    """Apply this revision."""
    if sa.inspect(op.get_bind()).has_table("clients"):
        # Made by the single workspace schema of earlier versions, before packs: adopted as is.
        return
    op.create_table(
        "clients",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("name_key", sa.Text(), nullable=False),
        sa.Column("notes", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name_key"),
    )

    op.create_table(
        "assignments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("client_id", sa.Integer(), nullable=False),
        sa.Column("team_member_id", sa.Integer(), nullable=False),
        sa.Column("assignment_role", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["client_id"], ["clients.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["team_member_id"], ["team_members.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("client_id", "team_member_id", "assignment_role"),
    )

    op.create_table(
        "brands",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("client_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("name_key", sa.Text(), nullable=False),
        sa.Column("marketplace", sa.Text(), nullable=True),
        sa.Column("destination_space", sa.Text(), nullable=True),
        sa.Column("destination_list", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["client_id"], ["clients.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("client_id", "name_key"),
    )
    with op.batch_alter_table("brands", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_brands_name_key"), ["name_key"], unique=False)

    op.create_table(
        "client_memory_notes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("client_id", sa.Integer(), nullable=False),
        sa.Column("author", sa.Text(), nullable=False),
        sa.Column("source", sa.String(length=16), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("confidence", sa.Float(), nullable=False),
        sa.Column(
            "tags",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("archived_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["client_id"], ["clients.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("client_memory_notes", schema=None) as batch_op:
        batch_op.create_index(
            "ix_client_memory_client_created", ["client_id", "created_at"], unique=False
        )

    op.create_table(
        "kb_documents",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("client_id", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column(
            "tags",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["client_id"], ["clients.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("kb_documents", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_kb_documents_client_id"), ["client_id"], unique=False)

    op.create_table(
        "tasks",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("client_id", sa.Integer(), nullable=False),
        sa.Column("brand_id", sa.Integer(), nullable=True),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("assignee_id", sa.Integer(), nullable=True),
        sa.Column("due_date", sa.Date(), nullable=True),
        sa.Column(
            "product_ids",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("created_by", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["assignee_id"], ["team_members.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["brand_id"], ["brands.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["client_id"], ["clients.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("tasks", schema=None) as batch_op:
        batch_op.create_index("ix_tasks_client_status", ["client_id", "status"], unique=False)
    _create_search()


def downgrade() -> None:
    """Revert this revision."""
    _drop_search()
    with op.batch_alter_table("tasks", schema=None) as batch_op:
        batch_op.drop_index("ix_tasks_client_status")
    op.drop_table("tasks")
    with op.batch_alter_table("kb_documents", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_kb_documents_client_id"))
    op.drop_table("kb_documents")
    with op.batch_alter_table("client_memory_notes", schema=None) as batch_op:
        batch_op.drop_index("ix_client_memory_client_created")
    op.drop_table("client_memory_notes")
    with op.batch_alter_table("brands", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_brands_name_key"))
    op.drop_table("brands")
    op.drop_table("assignments")
    op.drop_table("clients")


# Title matches weigh more than body matches on both databases.
_PG_SEARCH = """
ALTER TABLE kb_documents ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('english', coalesce(title, '')), 'A') ||
    setweight(to_tsvector('english', coalesce(body, '')), 'B')
) STORED
"""
_SQLITE_SEARCH = [
    """CREATE VIRTUAL TABLE kb_documents_fts USING fts5(
        title, body, content='kb_documents', content_rowid='id',
        tokenize='porter unicode61 remove_diacritics 2')""",
    """CREATE TRIGGER kb_documents_ai AFTER INSERT ON kb_documents BEGIN
        INSERT INTO kb_documents_fts(rowid, title, body) VALUES (new.id, new.title, new.body);
    END""",
    """CREATE TRIGGER kb_documents_ad AFTER DELETE ON kb_documents BEGIN
        INSERT INTO kb_documents_fts(kb_documents_fts, rowid, title, body)
        VALUES ('delete', old.id, old.title, old.body);
    END""",
    """CREATE TRIGGER kb_documents_au AFTER UPDATE ON kb_documents BEGIN
        INSERT INTO kb_documents_fts(kb_documents_fts, rowid, title, body)
        VALUES ('delete', old.id, old.title, old.body);
        INSERT INTO kb_documents_fts(rowid, title, body) VALUES (new.id, new.title, new.body);
    END""",
]


def _create_search() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(_PG_SEARCH)
        op.execute("CREATE INDEX ix_kb_documents_search ON kb_documents USING gin (search_vector)")
    else:
        for statement in _SQLITE_SEARCH:
            op.execute(statement)


def _drop_search() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP INDEX IF EXISTS ix_kb_documents_search")
    else:
        for trigger in ("kb_documents_ai", "kb_documents_ad", "kb_documents_au"):
            op.execute(f"DROP TRIGGER IF EXISTS {trigger}")
        op.execute("DROP TABLE IF EXISTS kb_documents_fts")
