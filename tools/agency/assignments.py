"""The agency pack's team assignments: who holds which role on a client account.

Like every change, both go through `run_once`; a removal's proposal shows the role it would
take away, read with the same lookup the removal uses.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import Field, field_validator
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from core.db.models import TeamMember
from tools.agency.models import Assignment, Client
from tools.agency.mutations import ADMIN, Name, as_key
from tools.agency.records import require
from tools.arguments import Args
from tools.declaration import Shows, ToolContext, ToolFailure, declare
from tools.idempotency import run_once


class AssignmentArgs(Args):
    """Arguments of assign_person and remove_assignment."""

    client: Name
    person: Name = Field(description="team member name")
    assignment_role: str = Field(
        min_length=1, max_length=64, description="e.g. account_manager, ppc_specialist"
    )

    @field_validator("assignment_role")
    @classmethod
    def _roleas_key(cls, value: str | None) -> str | None:
        if value is None:
            return None
        if not re.fullmatch(r"[^\W\d_]\w*", key := as_key(value)):
            raise ValueError("use words like account_manager or designer")
        return key


class RemovalArgs(AssignmentArgs):
    """Arguments of remove_assignment: the role may go unsaid when the person holds one."""

    assignment_role: str | None = Field(  # type: ignore[assignment]
        default=None,
        min_length=1,
        max_length=64,
        description="e.g. designer; leave it out to remove the one role they hold there",
    )


async def _parties(ctx: ToolContext, args: AssignmentArgs) -> tuple[Client, TeamMember]:
    async with ctx.database().session() as session:
        client = await require(session, Client, args.client, label="client")
        return client, await require(session, TeamMember, args.person, label="person")


def _held(client: Client, person: TeamMember, role: str | None = None) -> Any:
    held = select(Assignment).where(
        Assignment.client_id == client.id, Assignment.team_member_id == person.id
    )
    return held if role is None else held.where(Assignment.assignment_role == role)


@declare(
    pack="agency",
    kind="mutating",
    roles=ADMIN,
    asks=(
        "assign Dana to Acme as designer",
        "make Sam the account manager for Globex",
        "put Lee on Initech as the ppc specialist",
        "Dana should join Hooli as analyst",
        "can you add Sam to the Acme team?",
        "Lee is our new analyst on Hooli",
    ),
    shows=Shows(
        records="assignment",
        fields=("person", "client", "assignment_role"),
        lead={"assigned": "Assigned"},
    ),
)
async def assign_person(args: AssignmentArgs, ctx: ToolContext) -> dict[str, Any]:
    """Give a team member a role on a client account (e.g. account_manager, designer).

    A person may hold several roles on one client; assigning a held role is an error.

    Returns:
        {"status": "assigned", "assignment": {"id", "client", "person", "assignment_role"}}.
    """
    client, person = await _parties(ctx, args)
    role = args.assignment_role

    async def mutate(session: AsyncSession) -> dict[str, Any]:
        if await session.scalar(_held(client, person, role)):
            raise ValueError(f"{person.name} is already {role} on {client.name}")
        row = Assignment(client_id=client.id, team_member_id=person.id, assignment_role=role)
        session.add(row)
        await session.flush()
        shown = {"id": row.id, "client": client.name, "person": person.name}
        return {"status": "assigned", "assignment": {**shown, "assignment_role": role}}

    return await run_once(ctx, "assign_person", args.model_dump(mode="json"), mutate)


async def _removed(
    session: AsyncSession, client: Client, person: TeamMember, role: str | None
) -> Assignment:
    """The one assignment a removal takes away; ValueError lists the roles held instead.

    A role said short is the held role it names ("am", "ppc", "manager": `_names`).
    """
    held = list(await session.scalars(_held(client, person)))  # a few rows: read once
    rows = [a for a in held if role in (None, a.assignment_role)]
    if role and not rows:
        rows = [a for a in held if _names(role, a)]
    if len(rows) != 1:
        roles = ", ".join(a.assignment_role for a in held) or "none"
        which = f"is not {role}" if role else f"holds {'several roles' if rows else 'no role'}"
        raise ValueError(f"{person.name} {which} on {client.name}; their roles there: {roles}")
    return rows[0]


def _names(said: str, held: Assignment) -> bool:
    """Whether a role said (as a key) names `held`: by its initials or one of its words.

    "am" and "thorinox_am" name account_manager; "ppc" names ppc_specialist.
    """
    words = held.assignment_role.split("_")
    return bool(set(said.split("_")) & {*words, "".join(w[:1] for w in words)})


async def _removes(args: RemovalArgs, ctx: ToolContext) -> str:
    """The assignment a removal would take away: a person approves the role itself."""
    try:
        client, person = await _parties(ctx, args)
        async with ctx.database().session() as session:
            row = await _removed(session, client, person, args.assignment_role)
    except ValueError as exc:
        raise ToolFailure(f"nothing to remove: {exc}") from None
    return f"→ {person.name} as {row.assignment_role} on {client.name}"


@declare(
    pack="agency",
    kind="mutating",
    roles=ADMIN,
    asks=(
        "take Dana off Acme",
        "remove Sam from the Globex account",
        "unassign Lee as designer on Initech",
        "Sam has left the Hooli team, remove the assignment",
        "Dana doesn't work on Acme anymore",
        "unassign Sam from Globex",
        "Dana stops designing for Acme, take her off",
    ),
    shows=Shows(
        records="assignment",
        fields=("person", "client", "assignment_role"),
        lead={"removed": "Removed the assignment"},
    ),
    previews=_removes,
)
async def remove_assignment(args: RemovalArgs, ctx: ToolContext) -> dict[str, Any]:
    """Take a role on a client account away from a team member.

    Without `assignment_role`, the one role the person holds on the client is removed.
    Removing a role the person does not hold, or leaving it out when they hold several or
    none, is an error that lists the roles they do hold.

    Returns:
        {"status": "removed", "assignment": {"client", "person", "assignment_role"}}.
    """
    client, person = await _parties(ctx, args)
    role = args.assignment_role

    async def mutate(session: AsyncSession) -> dict[str, Any]:
        await session.delete(row := await _removed(session, client, person, role))
        removed = row.assignment_role
        shown = {"client": client.name, "person": person.name, "assignment_role": removed}
        return {"status": "removed", "assignment": shown}

    return await run_once(ctx, "remove_assignment", args.model_dump(mode="json"), mutate)


TOOLS = [assign_person, remove_assignment]
