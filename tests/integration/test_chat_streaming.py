"""`agentloop chat` streams the answer as it is written; stdout keeps only checked answers."""

from __future__ import annotations

from pathlib import Path

from app.cli.render import REWRITING
from tests.support.cli import agentloop

DRAFT = "Garlic Press belongs to **Thorinox**."
ANSWER = "Garlic Press belongs to Thorinox."


def test_chat_streams_a_rejected_draft_then_the_checked_answer(
    workspace_url: str, tmp_path: Path, write_script
) -> None:
    env = {"DATABASE_URL": workspace_url, "AGENTLOOP_DATA_DIR": str(tmp_path / "data")}
    assert agentloop("db", "upgrade", env=env).returncode == 0
    script = write_script([{"content": DRAFT}, {"content": ANSWER}])
    proc = agentloop(
        "chat", "--thread", "s1", "--model", script, env=env, stdin="who owns Garlic Press?\n\n"
    )
    assert proc.returncode == 0, proc.stderr
    # Progress (stderr, not a terminal): each draft as it streamed, the withdrawn one marked.
    assert f"{DRAFT}\n{REWRITING}\n{ANSWER}\n" in proc.stderr
    # The answer (stdout): only the checked text, once.
    assert proc.stdout.count(ANSWER) == 1
    assert "**" not in proc.stdout
