"""The workspace schema (one schema for SQLite and PostgreSQL), in SQLAlchemy 2 style.

Its tables by area: the agency, the hotel, the changes (proposals, decisions, receipts) and
the audit. Importing the package maps every table, so `Base.metadata` holds the whole schema.
Full-text search lives outside the ORM: an FTS5 table on SQLite and a generated tsvector
column on PostgreSQL, both created by the migration (see `core.db.search`).
"""

from core.db.models.agency import (
    Assignment,
    Brand,
    Client,
    ClientMemoryNote,
    KbDocument,
    Task,
    TeamMember,
)
from core.db.models.audit import AgentMessage, AgentRun, ProcessedEvent, SkillEvent
from core.db.models.changes import ConfirmationRecord, MutationReceipt, ProposalRecord
from core.db.models.hospitality import Booking, Rate, Room

__all__ = [
    "AgentMessage",
    "AgentRun",
    "Assignment",
    "Booking",
    "Brand",
    "Client",
    "ClientMemoryNote",
    "ConfirmationRecord",
    "KbDocument",
    "MutationReceipt",
    "ProcessedEvent",
    "ProposalRecord",
    "Rate",
    "Room",
    "SkillEvent",
    "Task",
    "TeamMember",
]
