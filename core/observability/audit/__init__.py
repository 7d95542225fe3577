"""The audit of runs in the workspace database: `agent_runs`, `agent_messages`, skill events."""

from core.observability.audit.log import AuditLog
from core.observability.audit.planner_runs import PlannerRuns
from core.observability.audit.run import RunAudit, RunInfo

__all__ = ["AuditLog", "PlannerRuns", "RunAudit", "RunInfo"]
