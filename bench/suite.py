"""The benchmarks by name: run all or some, and record their sections in bench/RESULTS.md.

Each benchmark module has `run()` (a dataclass of figures; `run(say=...)` when it reports
progress) and `render(result)` (its markdown section). A run of some benchmarks replaces
their sections and keeps the others as they were; each section is marked with its name and
when it was recorded, and the header lists those times.
"""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from bench import machine

RESULTS = Path(__file__).with_name("RESULTS.md")
Say = Callable[[str], None]

_MARKER = re.compile(r"^<!-- bench: (?P<name>\w+), (?P<when>[^>]+?) -->$")


@dataclass(frozen=True)
class Benchmark:
    """One benchmark: its module `bench.<name>` and what it measures."""

    name: str
    about: str


BENCHMARKS = (
    Benchmark("local_model", "the embedded local model on the tuning and held-out asks"),
    Benchmark("mcp_local", "the embedded model picking an MCP server's tools (no example asks)"),
    Benchmark("overhead", "orchestration overhead per turn vs langchain's create_agent"),
    Benchmark("runtime_cost", "the runtime alone vs create_agent: CPU per text turn on Postgres"),
    Benchmark("wave", "wall time of a wave of independent tools vs the slowest tool"),
    Benchmark("workspace", "KB search and name lookups on a 10,000-document workspace"),
    Benchmark("history", "tokens sent per request over a 300-turn thread, with compaction"),
    Benchmark("tracing", "per-turn cost of Langfuse tracing"),
    Benchmark("slack_ack", "Slack event acknowledgement latency under load"),
    Benchmark("streaming", "first words of a streamed answer visible: CLI and Slack"),
    Benchmark("savers", "Postgres saver: stock durability modes vs ours, CPU and round trips"),
    Benchmark("checkpoints", "Postgres checkpoint time per step and storage per turn"),
    Benchmark("concurrency", "100 concurrent threads × 5 turns on a 100 ms model"),
)
NAMES = tuple(b.name for b in BENCHMARKS)


@dataclass(frozen=True)
class Section:
    """A benchmark's recorded section."""

    name: str
    recorded: str
    lines: list[str]


def select(names: Iterable[str]) -> list[str]:
    """Return the benchmarks to run, in suite order (all for none); ValueError on unknown."""
    wanted = list(dict.fromkeys(names))
    unknown = [n for n in wanted if n not in NAMES]
    if unknown:
        raise ValueError(
            f"unknown benchmark(s): {', '.join(unknown)}; choose from {', '.join(NAMES)}"
        )
    return [n for n in NAMES if n in wanted] if wanted else list(NAMES)


def run(names: Iterable[str] = (), say: Say = print, results: Path = RESULTS) -> Path:
    """Run the named benchmarks (all for none), recording each section as soon as it is done.

    Every section of one run is marked with the time the run started. A benchmark that
    fails stops the run; the sections already recorded stay.
    """
    started = f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC"
    for name in select(names):
        say(f"running {name} …")
        module = importlib.import_module(f"bench.{name}")
        takes_say = "say" in inspect.signature(module.run).parameters
        result = module.run(say=say) if takes_say else module.run()
        section = Section(name, started, module.render(result))
        say("\n".join(section.lines))
        record(section, results)
    return results


def record(section: Section, results: Path = RESULTS) -> None:
    """Write `section` into the results file, keeping the other benchmarks' sections."""
    sections = read(results) if results.exists() else {}
    sections[section.name] = section
    results.write_text(render(sections), encoding="utf-8")


def read(results: Path) -> dict[str, Section]:
    """Return the marked sections of a results file by benchmark name."""
    sections: dict[str, Section] = {}
    current: Section | None = None
    for line in results.read_text(encoding="utf-8").splitlines():
        marker = _MARKER.match(line)
        if marker:
            current = Section(marker["name"], marker["when"], [])
            sections[current.name] = current
        elif current is not None:
            current.lines.append(line)
    for section in sections.values():
        while section.lines and not section.lines[-1].strip():
            section.lines.pop()
    return sections


def render(sections: dict[str, Section]) -> str:
    """Return the whole results file: header, machine, then the sections in suite order."""
    ordered = [sections[n] for n in NAMES if n in sections]
    times: dict[str, list[str]] = {}
    for section in ordered:
        times.setdefault(section.recorded, []).append(section.name)
    if len(times) == 1:
        when = f"- run: {next(iter(times))}"
    else:
        when = "- runs: " + "; ".join(f"{t} ({', '.join(n)})" for t, n in sorted(times.items()))
    facts = [line for line in machine.describe().splitlines() if not line.startswith("- run:")]
    lines = [
        "# Benchmark results",
        "",
        "Recorded by `make bench` or `agentloop bench` (one run each); "
        "`agentloop bench NAME...` reruns some and keeps the other sections.",
        "",
        when,
        *facts,
    ]
    for section in ordered:
        lines += ["", f"<!-- bench: {section.name}, {section.recorded} -->", *section.lines]
    return "\n".join(lines) + "\n"
