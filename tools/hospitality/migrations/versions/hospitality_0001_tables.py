"""The hospitality pack's tables: room types, their nightly rates and the bookings.

Revision ID: hospitality_0001
Revises:
Create Date: 2026-12-02 02:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "hospitality_0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = ("hospitality",)
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    if sa.inspect(op.get_bind()).has_table("rooms"):
        # Made by the single workspace schema of earlier versions, before packs: adopted as is.
        return
    op.create_table(
        "rooms",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("room_type", sa.Text(), nullable=False),
        sa.Column("max_guests", sa.Integer(), nullable=False),
        sa.Column("inventory", sa.Integer(), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("room_type"),
    )

    op.create_table(
        "bookings",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("room_id", sa.Integer(), nullable=False),
        sa.Column("check_in", sa.Date(), nullable=False),
        sa.Column("check_out", sa.Date(), nullable=False),
        sa.Column("guests", sa.Integer(), nullable=False),
        sa.Column("guest_name", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("created_by", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["room_id"], ["rooms.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("bookings", schema=None) as batch_op:
        batch_op.create_index(
            "ix_bookings_room_dates", ["room_id", "check_in", "check_out"], unique=False
        )

    op.create_table(
        "rates",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("room_id", sa.Integer(), nullable=False),
        sa.Column("start_date", sa.Date(), nullable=False),
        sa.Column("end_date", sa.Date(), nullable=False),
        sa.Column("rate_per_night", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(["room_id"], ["rooms.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("rates", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_rates_room_id"), ["room_id"], unique=False)


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("rates", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_rates_room_id"))
    op.drop_table("rates")
    with op.batch_alter_table("bookings", schema=None) as batch_op:
        batch_op.drop_index("ix_bookings_room_dates")
    op.drop_table("bookings")
    op.drop_table("rooms")
