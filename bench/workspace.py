"""Workspace search and name lookups on a generated workspace, on SQLite and PostgreSQL.

10,000 KB documents and 1,000 clients (3 brands each) are generated deterministically;
every measured call opens its own session, as a tool does.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from sqlalchemy import insert, select, text

from core.db.base import name_key
from core.db.engine import Database, open_database
from core.settings import Settings
from tools.agency.models import Brand, Client, KbDocument
from tools.agency.search import search
from tools.names import resolve
from tools.pack_data import upgrade_workspace

DOCUMENTS = 10_000
CLIENTS = 1_000
BRANDS_PER_CLIENT = 3
CALLS = 300
WARMUP = 30
SEED = 20261122
BATCH = 1_000
RARE_WORDS = 3_000
SEARCH_TARGET_MS = 25.0
LOOKUP_TARGET_MS = 10.0
PG_ADMIN_URL = os.environ.get(
    "AGENTLOOP_BENCH_PG_ADMIN_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
)


def _vocabulary(words: str) -> tuple[str, ...]:
    return tuple(words.split())


# Words of agency prose in general, most frequent first (drawn with Zipf-like weights).
GENERAL = _vocabulary(
    "client listing amazon brand product team task check update review weekly account manager "
    "seller central marketplace report price asin sku customer page content campaign budget "
    "sales order note confirm share send schedule track monthly target performance change "
    "issue request approve draft final upload live date deadline owner process step template "
    "document example rule exception escalate summary goal metric quarter forecast margin cost "
    "fee shipment stock warehouse category search rank conversion traffic click impression "
    "spend revenue profit growth audit channel vendor supplier invoice payment contract "
    "agreement proposal scope estimate timeline milestone priority backlog ticket status "
    "blocker dependency handoff meeting call agenda minutes recap followup reminder calendar "
    "slack email thread message spreadsheet sheet tab column row filter export import folder "
    "drive link screenshot mockup brief feedback revision version approval signoff launch "
    "rollout pilot test experiment hypothesis result baseline uplift lift decline drop spike "
    "seasonality holiday peak season weekend weekday morning evening daily hourly threshold "
    "alert notification error warning fix workaround root cause incident postmortem lesson "
    "risk mitigation contingency backup reviewer approver editor admin viewer member role "
    "permission access login password security policy guideline standard format naming "
    "convention checklist playbook manual handbook onboarding training walkthrough demo "
    "tutorial faq question answer support help contact escalation response resolution sla "
    "turnaround capacity workload headcount hire freelancer agency partner stakeholder "
    "executive director lead specialist analyst coordinator designer copywriter photographer "
    "developer engineer marketer strategist strategy plan roadmap objective initiative project "
    "program portfolio assortment range line family bundle pack multipack kit set size color "
    "style material dimension weight packaging box carton label barcode upc ean unit case lot "
    "batch expiry origin country region market locale language translation currency tax vat "
    "duty tariff freight carrier courier delivery tracking transit delay lost damaged receipt "
    "count discrepancy reconciliation adjustment correction credit debit balance statement "
    "settlement payout reserve commission referral subscription storage removal disposal "
    "liquidation outlet clearance markdown promotion offer upsell crosssell retention loyalty "
    "repeat subscribe save wishlist cart checkout abandon bounce dwell scroll engagement "
    "awareness consideration purchase funnel journey persona audience segment demographic "
    "interest behavior lookalike retargeting remarketing creative copy headline tagline hook "
    "angle benefit feature claim proof testimonial ugc influencer affiliate"
)
FUNCTION_WORDS = _vocabulary(
    "the a an and to of in for on with by from is are be it this that as at or if "
    "when then before after every each all any our their its not only also"
)
# Each topic's own words; a document is about one topic.
TOPICS: dict[str, tuple[str, ...]] = {
    "coupon": ("coupon", "discount", "promotion", "code", "badge", "redemption", "clip"),
    "ppc": ("ppc", "bid", "keyword", "acos", "roas", "negative", "sponsored", "placement"),
    "images": ("image", "photo", "infographic", "lifestyle", "designer", "background", "render"),
    "aplus": ("aplus", "module", "comparison", "chart", "banner", "storytelling", "layout"),
    "inventory": ("inventory", "fba", "replenishment", "restock", "stranded", "aged", "pallet"),
    "reviews": ("reviews", "rating", "vine", "feedback", "star", "sentiment", "response"),
    "registry": ("registry", "trademark", "infringement", "counterfeit", "hijacker", "violation"),
    "pricing": ("pricing", "repricer", "buybox", "msrp", "competitor", "undercut", "floor"),
    "deals": ("lightning", "deal", "prime", "day", "event", "eligibility", "cutoff"),
    "seo": ("seo", "backend", "terms", "title", "bullet", "indexing", "relevance"),
    "returns": ("returns", "refund", "defect", "reimbursement", "damaged", "claim", "case"),
    "launch": ("launch", "variation", "parent", "child", "hazmat", "gtin", "exemption"),
    "storefront": ("storefront", "store", "tile", "video", "homepage", "navigation", "post"),
    "analytics": ("analytics", "dashboard", "cohort", "attribution", "benchmark", "trend"),
    "compliance": ("compliance", "certificate", "safety", "prop65", "testing", "label"),
    "onboarding": ("onboarding", "kickoff", "access", "permissions", "mapping", "handover"),
}
KINDS = ("sop", "doc", "template")
TITLE_ENDINGS = ("SOP", "checklist", "guide", "playbook", "notes", "template", "FAQ", "policy")
SYLLABLES = _vocabulary(
    "tho ri nox dis tex ka lo mi ver zan bel co ra quin sol tri vo lux ar den fi gra hal "
    "jo kel mar nor pel sen tor ul vin wex yar zel bri cas dor el fen gil iv "
)
CLIENT_SUFFIXES = ("Home", "Labs", "Goods", "Outdoors", "Kitchen", "Pets", "Co", "Living")
CATEGORIES = (
    "Garlic Press",
    "Cutlery",
    "Peelers",
    "Storage",
    "Lighting",
    "Cookware",
    "Bakeware",
    "Knives",
    "Bins",
    "Lamps",
    "Blankets",
    "Pillows",
    "Towels",
    "Bath Mats",
    "Bottles",
    "Mugs",
    "Planters",
    "Hand Tools",
    "Toys",
    "Leashes",
    "Brushes",
    "Cutting Boards",
    "Grinders",
    "Kettles",
    "Candles",
    "Frames",
    "Hooks",
    "Racks",
    "Baskets",
    "Scales",
)


@dataclass(frozen=True)
class WorkspaceResult:
    """Per-call latency of one operation on one database."""

    dialect: str
    operation: str
    p50_ms: float
    p95_ms: float
    calls: int

    @property
    def target_ms(self) -> float:
        """The p95 this operation should stay under."""
        return SEARCH_TARGET_MS if self.operation.startswith("search") else LOOKUP_TARGET_MS

    @property
    def met(self) -> bool:
        """Whether the p95 is under the target."""
        return self.p95_ms < self.target_ms


@dataclass(frozen=True)
class Dataset:
    """A generated workspace plus the inputs the measured calls use."""

    clients: list[dict[str, Any]]
    brands: list[tuple[str, str]]
    """(client name, brand name) pairs."""
    documents: list[dict[str, Any]]
    """Documents without client ids: `client` is an index into `clients`, or None."""
    queries: list[str]
    exact_names: list[str]
    typo_names: list[tuple[str, str]]
    """(typed name, intended client name) pairs."""
    brand_typos: list[str]


def generate(seed: int = SEED) -> Dataset:
    """Generate the workspace and the benchmark inputs deterministically from `seed`."""
    rng = random.Random(seed)
    names = _client_names(rng, CLIENTS)
    clients = [{"name": n, "name_key": name_key(n), "notes": _sentence(rng, "")} for n in names]
    brands = [
        (n, f"{n.split()[0]} {category}")
        for n in names
        for category in rng.sample(CATEGORIES, BRANDS_PER_CLIENT)
    ]
    documents = [_document(rng) for _ in range(DOCUMENTS)]
    calls = CALLS + WARMUP
    taken = {c["name_key"] for c in clients}
    typos = [(_typo(rng, n, taken), n) for n in rng.choices(names, k=calls)]
    brand_keys = {name_key(b) for _, b in brands}
    return Dataset(
        clients=clients,
        brands=brands,
        documents=documents,
        queries=[_query(rng) for _ in range(calls)],
        exact_names=[_retype(rng, n) for n in rng.choices(names, k=calls)],
        typo_names=typos,
        brand_typos=[_typo(rng, b, brand_keys) for _, b in rng.choices(brands, k=calls)],
    )


def _client_names(rng: random.Random, count: int) -> list[str]:
    names: dict[str, str] = {}
    while len(names) < count:
        stem = "".join(rng.choices(SYLLABLES, k=rng.choice((2, 3, 3)))).capitalize()
        name = f"{stem} {rng.choice(CLIENT_SUFFIXES)}" if rng.random() < 0.4 else stem
        names.setdefault(name_key(name), name)
    return list(names.values())


@cache
def _prose(topic: str) -> tuple[tuple[str, ...], list[float]]:
    """Return the words of prose about `topic` and their cumulative weights.

    A third of the words are function words, two fifths general agency words, a sixth the
    topic's own and the rest a long tail of rare words (product code names, jargon);
    within each pool, frequency falls off with rank (Zipf-like).
    """
    pools = ((FUNCTION_WORDS, 0.33), (GENERAL, 0.42), (TOPICS[topic], 0.17), (_rare(), 0.08))
    words: list[str] = []
    weights: list[float] = []
    for pool, share in pools:
        ranked = [1 / (rank + 2) for rank in range(len(pool))]
        words += pool
        weights += [share * w / sum(ranked) for w in ranked]
    return tuple(words), list(itertools.accumulate(weights))


@cache
def _rare(count: int = RARE_WORDS) -> tuple[str, ...]:
    """Return `count` distinct coined words, the same ones on every run."""
    rng = random.Random(0)
    words: dict[str, None] = {}
    while len(words) < count:
        words["".join(rng.choices(SYLLABLES, k=rng.randint(2, 4)))] = None
    return tuple(words)


def _words(rng: random.Random, topic: str, count: int) -> list[str]:
    words, cumulative = _prose(topic)
    return rng.choices(words, cum_weights=cumulative, k=count)


def _sentence(rng: random.Random, topic: str) -> str:
    return _capitalized(_words(rng, topic or rng.choice(list(TOPICS)), rng.randint(7, 16)))


def _capitalized(words: Iterable[str]) -> str:
    text = " ".join(words)
    return f"{text[0].upper()}{text[1:]}."


def _document(rng: random.Random) -> dict[str, Any]:
    topic = rng.choice(list(TOPICS))
    lengths = [rng.randint(7, 16) for _ in range(rng.randint(18, 40))]
    words = iter(_words(rng, topic, sum(lengths)))
    sentences = [_capitalized(itertools.islice(words, n)) for n in lengths]
    # Coupons come up in other topics too (pricing, deals, launches).
    if topic != "coupon" and rng.random() < 0.08:
        sentences.insert(rng.randrange(len(sentences)), "Check whether a coupon applies first.")
    head = rng.sample(TOPICS[topic], 2) + rng.sample(GENERAL[:30], rng.randint(0, 2))
    title = " ".join([*head, rng.choice(TITLE_ENDINGS)])
    return {
        "client": rng.randrange(CLIENTS) if rng.random() < 0.7 else None,
        "kind": rng.choice(KINDS),
        "title": title[0].upper() + title[1:],
        "body": "\n".join(" ".join(sentences[i : i + 4]) for i in range(0, len(sentences), 4)),
        "tags": [topic, *rng.sample(GENERAL[:20], 2)],
    }


def _query(rng: random.Random) -> str:
    """Return a 2-4 word query as people type them ("coupon setup checklist")."""
    topic = rng.choice(list(TOPICS))
    words = rng.sample(TOPICS[topic], rng.randint(1, 2))
    words += rng.sample(GENERAL, rng.randint(1, 4 - len(words)))
    rng.shuffle(words)
    return " ".join(words)


def _retype(rng: random.Random, name: str) -> str:
    """Return `name` as someone might type it exactly: any case, stray spaces."""
    style = rng.choice((str.lower, str.upper, str.title, str))
    return f" {style(name)}" if rng.random() < 0.2 else style(name)


def _typo(rng: random.Random, name: str, taken: set[str]) -> str:
    """Return `name` with one typing mistake after its first letter, matching no other name."""
    while True:
        i = rng.randrange(1, len(name) - 1)
        letter = rng.choice("abcdefghijklmnopqrstuvwxyz")
        typed = rng.choice(
            (
                name[:i] + name[i + 1 :],  # dropped
                name[:i] + name[i + 1] + name[i] + name[i + 2 :],  # swapped
                name[:i] + letter + name[i + 1 :],  # wrong key
                name[:i] + letter + name[i:],  # extra key
            )
        )
        if name_key(typed) not in taken:
            return typed


async def _load(db: Database, data: Dataset) -> None:
    """Bulk-insert the generated workspace, then refresh the planner's statistics."""
    async with db.session() as session:
        await session.execute(insert(Client), data.clients)
        ids = {row.name: row.id for row in await session.execute(select(Client.name, Client.id))}
        await session.execute(
            insert(Brand),
            [
                {
                    "client_id": ids[c],
                    "name": b,
                    "name_key": name_key(b),
                    "marketplace": "amazon_us",
                }
                for c, b in data.brands
            ],
        )
        client_ids = [ids[c["name"]] for c in data.clients]
        for batch in _batches(data.documents, BATCH):
            rows = [
                {
                    "client_id": None if d["client"] is None else client_ids[d["client"]],
                    **{k: d[k] for k in ("kind", "title", "body", "tags")},
                }
                for d in batch
            ]
            await session.execute(insert(KbDocument), rows)
        await session.commit()
    async with db.engine.connect() as connection:
        await connection.execute(text("ANALYZE"))
        await connection.commit()


def _batches(items: list[dict[str, Any]], size: int) -> Iterator[list[dict[str, Any]]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


Call = Callable[[Any], Awaitable[Any]]


async def _measure(db: Database, inputs: list[Any], call: Call) -> tuple[float, float]:
    """Run `call` once per input, each in its own session; return (p50, p95) ms after warm-up."""
    timings = []
    for n, item in enumerate(inputs):
        start = time.perf_counter()
        async with db.session() as session:
            await call((session, item))
        if n >= WARMUP:
            timings.append((time.perf_counter() - start) * 1000)
    return statistics.median(timings), statistics.quantiles(timings, n=20)[-1]


async def _bench(db: Database, data: Dataset, say: Callable[[str], None]) -> list[WorkspaceResult]:
    dialect = db.dialect
    hits = found = 0

    async def search_kb(arg: Any) -> None:
        nonlocal hits
        session, query = arg
        hits += bool(await search(session, dialect, query, limit=5))

    async def exact(arg: Any) -> None:
        session, typed = arg
        assert (await resolve(session, Client, typed)).status == "found", typed

    async def typo(arg: Any) -> None:
        nonlocal found
        session, (typed, intended) = arg
        resolution = await resolve(session, Client, typed)
        found += resolution.match is not None and resolution.match.name == intended

    async def brand_typo(arg: Any) -> None:
        session, typed = arg
        await resolve(session, Brand, typed)

    operations: list[tuple[str, list[Any], Call]] = [
        ("search_kb (2-4 word queries)", data.queries, search_kb),
        ("resolve client, exact name", data.exact_names, exact),
        ("resolve client, name with a typo", data.typo_names, typo),
        ("resolve brand, name with a typo", data.brand_typos, brand_typo),
    ]
    results = []
    for operation, inputs, call in operations:
        p50, p95 = await _measure(db, inputs, call)
        results.append(WorkspaceResult(dialect, operation, p50, p95, len(inputs) - WARMUP))
    say(
        f"{dialect}: {hits}/{len(data.queries)} searches found documents; "
        f"{found}/{len(data.typo_names)} typed client names resolved to the intended client"
    )
    return results


async def _run_on(url: str, data: Dataset, say: Callable[[str], None]) -> list[WorkspaceResult]:
    settings = Settings(_env_file=None, database_url=url)
    upgrade_workspace(settings)
    db = open_database(settings)
    try:
        start = time.perf_counter()
        await _load(db, data)
        say(f"{db.dialect}: loaded the workspace in {time.perf_counter() - start:.1f} s")
        return await _bench(db, data, say)
    finally:
        await db.dispose()


def _on_sqlite(data: Dataset, say: Callable[[str], None]) -> list[WorkspaceResult]:
    with tempfile.TemporaryDirectory(prefix="agentloop-bench-") as tmp:
        url = f"sqlite:///{Path(tmp) / 'workspace.sqlite'}"
        return asyncio.run(_run_on(url, data, say))


def _on_postgres(data: Dataset, say: Callable[[str], None]) -> list[WorkspaceResult]:
    import psycopg

    name = f"agentloop_bench_{uuid.uuid4().hex[:12]}"
    try:
        with psycopg.connect(PG_ADMIN_URL, autocommit=True, connect_timeout=5) as admin:
            admin.execute(f'CREATE DATABASE "{name}"')
    except psycopg.OperationalError as exc:
        say(f"postgresql: skipped, not reachable at {PG_ADMIN_URL}: {exc}")
        return []
    try:
        return asyncio.run(_run_on(f"{PG_ADMIN_URL.rsplit('/', 1)[0]}/{name}", data, say))
    finally:
        with psycopg.connect(PG_ADMIN_URL, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def run(say: Callable[[str], None] | None = None) -> list[WorkspaceResult]:
    """Generate the workspace once, then measure it on SQLite and PostgreSQL.

    Args:
        say: Receives progress lines (load times, result sanity); silent when None.

    Returns:
        One result per database and operation; none for PostgreSQL when it is unreachable.
    """
    say = say or (lambda _: None)
    start = time.perf_counter()
    data = generate()
    say(f"generated the workspace in {time.perf_counter() - start:.1f} s")
    return _on_sqlite(data, say) + _on_postgres(data, say)


def render(results: list[WorkspaceResult]) -> list[str]:
    """Return the markdown lines of the results section, targets marked met or missed."""
    lines = [
        "## Workspace search and lookups (10,000 documents, 1,000 clients)",
        "",
        f"A generated workspace: {DOCUMENTS:,} KB documents of a few hundred words, "
        f"{CLIENTS:,} clients with {BRANDS_PER_CLIENT} brands each. Each call opens its own "
        f"session, as a tool does; {WARMUP} warm-up calls, then per-call latency. Queries mix "
        "topic words with common agency words, so any one word matches thousands of "
        "documents (search ranks all-word matches first and fills from a bounded any-word "
        "pool). Names with a typo take the fuzzy path; the brand row resolves a brand "
        "among all 3,000 without naming its client, a harder case than a client lookup. "
        "Targets: "
        f"p95 < {SEARCH_TARGET_MS:.0f} ms for search, < {LOOKUP_TARGET_MS:.0f} ms for lookups.",
        "",
        "| database | operation | calls | p50 ms | p95 ms | target (p95) |",
        "|---|---|---|---|---|---|",
    ]
    for r in results:
        verdict = "met" if r.met else "**missed**"
        lines.append(
            f"| {r.dialect} | {r.operation} | {r.calls} | {r.p50_ms:.2f} | {r.p95_ms:.2f} "
            f"| < {r.target_ms:.0f} ms: {verdict} |"
        )
    if not any(r.dialect == "postgresql" for r in results):
        lines += ["", f"PostgreSQL was not measured: no server at {_redacted(PG_ADMIN_URL)}."]
    missed = [r for r in results if not r.met]
    summary = "every target met" if not missed else f"{len(missed)} target(s) missed"
    return [*lines, "", f"Result: {summary}.", ""]


def _redacted(url: str) -> str:
    """Return `url` without its password, if it has one."""
    scheme, _, rest = url.partition("://")
    credentials, at, host = rest.rpartition("@")
    return f"{scheme}://{credentials.split(':', 1)[0]}{at}{host}" if at else url


if __name__ == "__main__":
    began = time.perf_counter()
    rendered = render(run(lambda line: print(line, file=sys.stderr, flush=True)))
    print("\n".join(rendered))
    print(f"(total {time.perf_counter() - began:.0f} s)", file=sys.stderr)
