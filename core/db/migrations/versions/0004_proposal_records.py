"""Proposal records: the changes propose recorded, which confirm checks decisions against.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-28 09:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "proposal_records",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("fingerprint", sa.Text(), nullable=False),
        sa.Column("thread_id", sa.Text(), nullable=False),
        sa.Column("message_id", sa.Text(), nullable=False),
        sa.Column("tool_call_id", sa.Text(), nullable=False),
        sa.Column("tool", sa.Text(), nullable=False),
        sa.Column("args", JSON, nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("actor", sa.Text(), nullable=False),
        sa.Column("actor_role", sa.String(length=32), nullable=False),
        sa.Column("run_id", sa.Text(), nullable=False),
        sa.Column("created_at", sa.Text(), nullable=False),
        sa.Column("expires_at", sa.Text(), nullable=False),
        sa.Column("parent_call_id", sa.Text(), nullable=False),
        sa.Column("resume_state", JSON, nullable=True),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("thread_id", "message_id", "tool_call_id"),
    )
    with op.batch_alter_table("proposal_records", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_proposal_records_fingerprint"), ["fingerprint"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_proposal_records_parent_call_id"), ["parent_call_id"], unique=False
        )


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("proposal_records", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_proposal_records_parent_call_id"))
        batch_op.drop_index(batch_op.f("ix_proposal_records_fingerprint"))
    op.drop_table("proposal_records")
