"""Confirmation records: the decisions the confirm node checked, which the tools node requires.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-24 17:40:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "confirmation_records",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("decision_key", sa.Text(), nullable=False),
        sa.Column("fingerprint", sa.Text(), nullable=False),
        sa.Column("thread_id", sa.Text(), nullable=False),
        sa.Column("tool_call_id", sa.Text(), nullable=False),
        sa.Column("tool", sa.Text(), nullable=False),
        sa.Column("decision", sa.String(length=16), nullable=False),
        sa.Column("args", JSON, nullable=False),
        sa.Column("decided_by", sa.Text(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("decision_key"),
    )
    with op.batch_alter_table("confirmation_records", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_confirmation_records_fingerprint"), ["fingerprint"], unique=False
        )


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("confirmation_records", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_confirmation_records_fingerprint"))
    op.drop_table("confirmation_records")
