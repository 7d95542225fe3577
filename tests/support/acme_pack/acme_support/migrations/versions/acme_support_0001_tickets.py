"""Acme's support tickets.

Revision ID: acme_support_0001
Revises:
Create Date: 2026-12-02 03:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "acme_support_0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = ("acme_support",)
depends_on: str | Sequence[str] | None = "0001"


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "acme_support_tickets",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("customer", sa.Text(), nullable=False),
        sa.Column("subject", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("closed_by", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )


def downgrade() -> None:
    """Revert this revision."""
    op.drop_table("acme_support_tickets")
