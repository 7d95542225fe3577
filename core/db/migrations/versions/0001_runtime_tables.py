"""The runtime's own tables: people and roles, tool events, receipts, processed events.

Revision ID: 0001
Revises:
Create Date: 2026-12-02 02:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = ("core",)
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "agent_skill_events",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.Text(), nullable=False),
        sa.Column("thread_id", sa.Text(), nullable=False),
        sa.Column("tool_call_id", sa.Text(), nullable=False),
        sa.Column("event_type", sa.String(length=16), nullable=False),
        sa.Column("skill_id", sa.Text(), nullable=False),
        sa.Column(
            "payload",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("payload_summary", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("agent_skill_events", schema=None) as batch_op:
        batch_op.create_index(
            "ix_agent_skill_events_run_created", ["run_id", "created_at"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_agent_skill_events_skill_id"), ["skill_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_agent_skill_events_thread_id"), ["thread_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_agent_skill_events_tool_call_id"), ["tool_call_id"], unique=False
        )

    op.create_table(
        "mutation_receipts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("idempotency_key", sa.Text(), nullable=False),
        sa.Column("tool", sa.Text(), nullable=False),
        sa.Column("actor", sa.Text(), nullable=False),
        sa.Column(
            "args",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column(
            "result",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("idempotency_key"),
    )

    op.create_table(
        "processed_events",
        sa.Column("event_id", sa.Text(), nullable=False),
        sa.Column("source", sa.String(length=32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("event_id"),
    )

    op.create_table(
        "team_members",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("name_key", sa.Text(), nullable=False),
        sa.Column("email", sa.Text(), nullable=False),
        sa.Column("slack_user_id", sa.Text(), nullable=True),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("email"),
        sa.UniqueConstraint("slack_user_id"),
    )
    with op.batch_alter_table("team_members", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_team_members_name_key"), ["name_key"], unique=False)


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("team_members", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_team_members_name_key"))
    op.drop_table("team_members")
    op.drop_table("processed_events")
    op.drop_table("mutation_receipts")
    with op.batch_alter_table("agent_skill_events", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_agent_skill_events_tool_call_id"))
        batch_op.drop_index(batch_op.f("ix_agent_skill_events_thread_id"))
        batch_op.drop_index(batch_op.f("ix_agent_skill_events_skill_id"))
        batch_op.drop_index("ix_agent_skill_events_run_created")
    op.drop_table("agent_skill_events")
