"""The runtime's own tables (one schema for SQLite and PostgreSQL), in SQLAlchemy 2 style.

People and their roles, the changes (proposals, decisions, receipts), the audit (runs,
messages, tool events) and people's feedback on answers. A pack's tables are its own
(tools/<pack>/), with their own migrations; importing this package maps the runtime's
tables into `Base.metadata`.
"""

from core.db.models.audit import AgentMessage, AgentRun, ProcessedEvent, SkillEvent
from core.db.models.changes import ConfirmationRecord, MutationReceipt, ProposalRecord
from core.db.models.feedback import Feedback
from core.db.models.people import TeamMember

__all__ = [
    "AgentMessage",
    "AgentRun",
    "ConfirmationRecord",
    "Feedback",
    "MutationReceipt",
    "ProcessedEvent",
    "ProposalRecord",
    "SkillEvent",
    "TeamMember",
]
