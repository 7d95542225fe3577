"""The agency pack's task listing: tasks filtered by client, status, assignee, brand, due, title."""

from __future__ import annotations

from datetime import date
from typing import Any, Literal

from pydantic import BaseModel, Field
from sqlalchemy import Select, select
from sqlalchemy.ext.asyncio import AsyncSession

from core.db.models import TeamMember
from tools.agency.lookup import (
    NameArg,
    find_client,
    unresolved,
)
from tools.agency.models import Brand, Client, Task
from tools.declaration import Shows, ToolContext, declare
from tools.names import resolve


class ListTasksArgs(BaseModel):
    """Arguments of `list_tasks`."""

    client: NameArg | None = None
    status: Literal["open", "in_progress", "blocked", "done"] | None = None
    assignee: NameArg | None = Field(default=None, description="a team member's name")
    brand: NameArg | None = None
    due_before: date | None = Field(default=None, description="YYYY-MM-DD, exclusive")
    task: str | None = Field(
        default=None, min_length=1, max_length=200, description="words of the task's title"
    )
    limit: int = Field(default=20, ge=1, le=100)


def tasks_query() -> Select[Task, str, str | None, str | None]:
    """Select tasks with their client's, brand's and assignee's names."""
    return (
        select(Task, Client.name, Brand.name, TeamMember.name)
        .join(Client, Task.client_id == Client.id)
        .outerjoin(Brand, Task.brand_id == Brand.id)
        .outerjoin(TeamMember, Task.assignee_id == TeamMember.id)
    )


def task_data(task: Task, brand: str | None, assignee: str | None) -> dict[str, Any]:
    """Return a task as a tool shows it: title, status, due date, brand and assignee."""
    due = task.due_date.isoformat() if task.due_date else None
    return {
        "id": task.id,
        "title": task.title,
        "status": task.status,
        "brand": brand,
        "assignee": assignee,
        "due_date": due,
    }


async def _task_filters(session: AsyncSession, args: ListTasksArgs) -> list[Any] | dict[str, Any]:
    """Turn the named filters (the status aside) into SQL conditions, or return the unclear name."""
    conditions: list[Any] = []
    brand_scope = None
    if args.client is not None:
        client = await find_client(session, args.client)
        if isinstance(client, dict):
            return client
        conditions.append(Task.client_id == client.id)
        brand_scope = Brand.client_id == client.id
    if args.assignee is not None:
        person = await resolve(session, TeamMember, args.assignee)
        if person.match is None:
            return unresolved(person, "assignee")
        conditions.append(Task.assignee_id == person.match.id)
    if args.brand is not None:
        brand = await resolve(session, Brand, args.brand, where=brand_scope)
        if brand.status == "not_found":
            return unresolved(brand, "brand")
        # A brand name several clients share lists the tasks of each (rows name the client).
        ids = [brand.match.id] if brand.match else [c.id for c in brand.candidates]
        conditions.append(Task.brand_id.in_(ids))
    if args.due_before is not None:
        conditions.append(Task.due_date < args.due_before)
    if args.task is not None:  # "the trademark renewal": a task asked about by its title
        conditions.append(Task.title.ilike(f"%{_escaped(args.task.strip())}%", escape="\\"))
    return conditions


def _escaped(text: str) -> str:
    """`text` with LIKE's wildcards taken literally."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


@declare(
    pack="agency",
    kind="read_only",
    asks=(
        "what's open for Acme right now?",
        "show me the tasks assigned to Sam",
        "which tasks are overdue?",
        "tasks in progress",
        "what is Lee working on?",
        "list finished tasks for Globex",
        "anything due before Friday?",
        "what's blocked on the Hooli account",
        "how busy is Dana right now?",
        "who is handling the listing photos task?",
        "what is the due date of the trademark renewal?",
        "status of the coupon setup task?",
        "tasks Lee owns",
        "is any of Sam's work stuck?",
        "Zesty's tasks, please",
        "what does Dana have going on",
    ),
    shows=Shows(
        records="tasks",
        fields=("title", "status", "assignee", "due_date", "client", "brand", "product_ids"),
        noun="task",
        lead={"other_statuses": "(none is {no_match_of_status}: the other statuses shown)"},
    ),
)
async def list_tasks(args: ListTasksArgs, ctx: ToolContext) -> dict[str, Any]:
    """List tasks, filtered by client, status, assignee, brand, due date and title.

    Names are matched tolerantly; `task` keeps the tasks whose title holds those words.
    `due_before` keeps tasks due strictly before that date (tasks without a due date are then
    left out). Ordered by due date (undated last), then id.

    Returns:
        {"count", "more" (true when `limit` cut the list), "tasks": [{"id", "title",
        "status", "client", "brand", "assignee", "due_date", "product_ids"}]}; or
        not_found/ambiguous naming the "field" to clarify. When no task has `status` ("what
        is still open for Acme?" while its one task is blocked), the tasks of the other
        statuses, with "status": "other_statuses" and "no_match_of_status".

    Examples:
        {"client": "Thorinox", "status": "open"}, {"assignee": "Omar"},
        {"brand": "Garlic Press", "client": "Thorinox"}, {"due_before": "2026-12-10"},
        {"task": "PPC budget review"}.
    """
    async with ctx.database().session() as session:
        conditions = await _task_filters(session, args)
        if isinstance(conditions, dict):
            return conditions
        asked = [] if args.status is None else [Task.status == args.status]
        found = await _tasks(session, [*conditions, *asked], args.limit)
        if widened := not found and bool(asked):
            found = await _tasks(session, [*conditions, Task.status != args.status], args.limit)
    tasks = [
        {**task_data(task, brand, person), "client": client, "product_ids": task.product_ids}
        for task, client, brand, person in found[: args.limit]
    ]
    listed = {"count": len(tasks), "more": len(found) > args.limit, "tasks": tasks}
    if widened and tasks:
        return {**listed, "status": "other_statuses", "no_match_of_status": args.status}
    return listed


async def _tasks(session: AsyncSession, conditions: list[Any], limit: int) -> list[Any]:
    """The tasks that meet `conditions`, one more than `limit` (undated last, then by id)."""
    query = tasks_query().where(*conditions).limit(limit + 1)
    # `IS NULL` sorts the same way on SQLite and PostgreSQL.
    order = (Task.due_date.is_(None), Task.due_date, Task.id)
    return list((await session.execute(query.order_by(*order))).all())


TOOLS = [list_tasks]
