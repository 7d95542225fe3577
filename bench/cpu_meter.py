"""CPU time used over an interval: this process, the local Postgres server, the machine.

Read from Linux's /proc; elsewhere the server's and the machine's figures are None. The
Postgres figure adds up every process named `postgres` (the server's backends, its
background workers), whoever they are serving; or, given a database, only the backends
connected to it: on a server other work shares, what the benchmark's own sessions cost (the
server's background writers, which serve every database, are then left out). A backend that
ends between two readings takes its time with it, so a database's sessions should stay open.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

_PROC = Path("/proc")


@dataclass(frozen=True)
class CpuReading:
    """Counters at one instant."""

    process_s: float
    postgres_s: float | None
    machine_busy_s: float | None
    machine_total_s: float | None


@dataclass(frozen=True)
class CpuUse:
    """CPU used between two readings."""

    process_s: float
    postgres_s: float | None
    machine_busy: float | None
    """Share of all cores' time that was not idle (0..1)."""


def read(database: str | None = None) -> CpuReading:
    """Return the counters now (the server's: of `database`'s backends alone, if given)."""
    busy, total = _machine()
    return CpuReading(time.process_time(), _postgres(database), busy, total)


def between(start: CpuReading, end: CpuReading) -> CpuUse:
    """Return what was used from `start` to `end`."""
    postgres = (
        end.postgres_s - start.postgres_s
        if end.postgres_s is not None and start.postgres_s is not None
        else None
    )
    machine = None
    if None not in (start.machine_busy_s, end.machine_busy_s, start.machine_total_s):
        total = end.machine_total_s - start.machine_total_s  # type: ignore[operator]
        busy = end.machine_busy_s - start.machine_busy_s  # type: ignore[operator]
        machine = busy / total if total else None
    return CpuUse(end.process_s - start.process_s, postgres, machine)


def _ticks() -> int:
    return os.sysconf("SC_CLK_TCK")


def _postgres(database: str | None) -> float | None:
    if not _PROC.is_dir():
        return None
    ticks = 0
    for stat in _PROC.glob("[0-9]*/stat"):
        try:
            text = stat.read_text(encoding="utf-8")
            name_end = text.rfind(")")
            if text[text.find("(") + 1 : name_end] != "postgres":
                continue
            # a backend's title: "postgres: [cluster:] user database host(port) activity"
            if database is not None and database not in _title(stat.parent).split():
                continue
        except OSError:
            continue  # the process ended meanwhile
        fields = text[name_end + 2 :].split()
        ticks += int(fields[11]) + int(fields[12])  # utime, stime
    return ticks / _ticks()


def _title(process: Path) -> str:
    return process.joinpath("cmdline").read_bytes().split(b"\0")[0].decode(errors="replace")


def _machine() -> tuple[float | None, float | None]:
    try:
        first = (_PROC / "stat").read_text(encoding="utf-8").splitlines()[0]
    except OSError:
        return None, None
    values = [int(v) for v in first.split()[1:]]
    idle = values[3] + values[4]  # idle, iowait
    total = sum(values[:8])  # user … steal (guest time is already in user)
    return (total - idle) / _ticks(), total / _ticks()
