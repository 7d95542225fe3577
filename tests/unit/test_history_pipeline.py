"""The history pipeline: turn limit, tool-result pruning, pairing repair, window fit."""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.messages.utils import count_tokens_approximately

from history.compaction import (
    EXTRACT_CHARS,
    EXTRACT_EXCHANGES,
    compact,
    extract,
    split_index,
    transcript,
)
from history.pipeline import (
    MISSING_RESULT,
    SUMMARY_HEADER,
    HistoryPolicy,
    limit_turns,
    pairing_problems,
    prepare,
    repair_pairing,
)
from history.pruning import CLEARED, PruningPolicy, prune


def turn(n: int, result: str = "ok") -> list:
    call = {"name": "lookup", "args": {"n": n}, "id": f"c{n}"}
    return [
        HumanMessage(f"question {n}", id=f"h{n}"),
        AIMessage("", tool_calls=[call], id=f"a{n}"),
        ToolMessage(result, tool_call_id=f"c{n}", name="lookup", id=f"t{n}"),
        AIMessage(f"answer {n}", id=f"r{n}"),
    ]


def thread(turns: int, result: str = "ok") -> list:
    return [m for n in range(turns) for m in turn(n, result)]


def test_limit_keeps_the_last_user_turns_whole() -> None:
    kept = limit_turns(thread(5), 2)
    assert [m.id for m in kept] == ["h3", "a3", "t3", "r3", "h4", "a4", "t4", "r4"]
    assert limit_turns(thread(2), 5) == thread(2)


def test_repair_drops_orphans_and_fills_missing_results() -> None:
    call = {"name": "lookup", "args": {}, "id": "x"}
    broken = [
        ToolMessage("orphan at the start", tool_call_id="gone"),
        HumanMessage("hi"),
        AIMessage("", tool_calls=[call, {**call, "id": "y"}]),
        ToolMessage("y result", tool_call_id="y"),
        ToolMessage("duplicate", tool_call_id="y"),
        ToolMessage("stranger", tool_call_id="z"),
        AIMessage("done"),
        ToolMessage("late orphan", tool_call_id="x"),
    ]
    assert pairing_problems(broken)
    repaired = repair_pairing(broken)
    assert pairing_problems(repaired) == []
    results = [m for m in repaired if isinstance(m, ToolMessage)]
    assert [(m.tool_call_id, m.text) for m in results] == [("x", MISSING_RESULT), ("y", "y result")]


def test_pairing_problems_name_the_break() -> None:
    history = thread(1)
    assert pairing_problems(history) == []
    assert "orphan" in pairing_problems(history[2:])[0]
    assert "without results" in pairing_problems(history[:2])[0]


def test_no_pruning_under_the_soft_ratio() -> None:
    history = thread(6, "x" * 5_000)
    assert prune(history, PruningPolicy(context_window=1_000_000)) == history


def test_soft_trim_keeps_head_and_tail_outside_the_protected_zone() -> None:
    big = "H" * 1_500 + "M" * 3_000 + "T" * 1_500
    history = thread(6, big)
    tokens = count_tokens_approximately(history)
    pruned = prune(history, PruningPolicy(context_window=int(tokens / 0.35)))
    results = [m for m in pruned if isinstance(m, ToolMessage)]
    # The last three assistant messages (turn 5's answer, turn 5's call, turn 4's answer)
    # protect everything from turn 4's answer on: turn 5's result is untouched.
    trimmed = [m for m in results if "trimmed" in m.text]
    assert len(trimmed) == 5 and results[-1].text == big
    assert trimmed[0].text.startswith("H" * 1_500 + "\n...\n" + "T" * 1_500)
    assert "M" not in trimmed[0].text
    assert [m.id for m in pruned] == [m.id for m in history]


def test_hard_clear_oldest_first_until_under_half_and_never_the_first_user_message() -> None:
    big = "r" * 20_000
    history = [HumanMessage("first " + "q" * 120_000, id="first"), *thread(8, big)[1:]]
    window = int(count_tokens_approximately(history) / 0.9)
    pruned = prune(history, PruningPolicy(context_window=window, min_prunable_tool_chars=1))
    cleared = [i for i, m in enumerate(pruned) if m.text == CLEARED]
    # Soft trim alone leaves it over half; clearing stops as soon as it is under, and the
    # most recent prunable result survives.
    assert 0 < len(cleared) < 7
    assert cleared == [2 + 4 * k for k in range(len(cleared))]  # oldest first
    assert count_tokens_approximately(pruned) / window < 0.5
    assert pruned[0].text == history[0].text


def test_hard_clear_waits_for_enough_prunable_characters() -> None:
    history = thread(6, "r" * 5_000)
    window = int(count_tokens_approximately(history) / 0.9)
    pruned = prune(history, PruningPolicy(context_window=window, min_prunable_tool_chars=10**9))
    assert not any(m.text == CLEARED for m in pruned)


def test_prepare_puts_system_then_summary_and_fits_the_window() -> None:
    history = thread(40, "z" * 3_000)
    system = SystemMessage("You are agentloop.")
    request = prepare(
        system, history, summary="They asked about Distex.", policy=HistoryPolicy(10, 4_000)
    )
    assert request[0] is system
    assert request[1].text.startswith(SUMMARY_HEADER) and isinstance(request[2], AIMessage)
    assert isinstance(request[3], HumanMessage)
    assert count_tokens_approximately(request) <= 4_000
    assert pairing_problems(request[1:]) == []
    assert request[-1].id == "r39"


def test_compaction_cut_is_a_user_message_before_the_running_turn() -> None:
    history = thread(5)
    running = [*history, HumanMessage("now", id="now")]
    cut = split_index(running, turn_start=len(running) - 1)
    assert running[cut].id == "h4"  # keeps the last 4+ messages, cut on a user message
    assert split_index(running, turn_start=8) == 8
    assert split_index(thread(1), turn_start=0) == 0


def test_transcript_keeps_the_newest_lines_within_budget() -> None:
    text = transcript(thread(30, "result " * 200), max_tokens=200)
    assert "question 29" in text and "question 0" not in text
    assert len(text) <= 800


def test_a_summary_without_a_model_lists_each_exchange_and_carries_the_last_ones() -> None:
    first = extract("", thread(2))
    assert first.splitlines() == [
        "Earlier in this thread:",
        "- Asked: question 0 (looked up: lookup) Answered: answer 0",
        "- Asked: question 1 (looked up: lookup) Answered: answer 1",
    ]
    long_ask = [HumanMessage("rooms " * 100), AIMessage("Which dates do you mean?")]
    later = extract(first, [*long_ask, *thread(EXTRACT_EXCHANGES)[4:]]).splitlines()
    assert len(later) == 1 + EXTRACT_EXCHANGES  # the oldest carried exchanges went first
    assert later[1] == f"- Asked: {('rooms ' * 100)[: EXTRACT_CHARS - 1]}… " + (
        "Answered: Which dates do you mean?"
    )
    assert later[-1].startswith(f"- Asked: question {EXTRACT_EXCHANGES - 1} ")
    assert extract("The person asked about rooms.", []).splitlines()[1:] == [
        "- The person asked about rooms."
    ]


async def test_compaction_without_a_model_cuts_as_with_one_and_flushes_nothing() -> None:
    history = [*thread(5), HumanMessage("now", id="now")]
    done = await compact(
        history,
        turn_start=len(history) - 1,
        previous_summary="",
        model=None,
        memory_tool=None,
        tool_ctx=None,  # type: ignore[arg-type]  # no flush, so no tool runs
        key_prefix="k",
        context_window=4096,
        deadline=0.0,  # no model call to give time to
    )
    assert done is not None and history[done.cut].id == "h4"
    assert done.summary == extract("", history[: done.cut])
    assert done.flush.model_calls == 0 and done.flush.saved == []
