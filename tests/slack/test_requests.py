"""What reaches `/slack/events`: the signature first, then a body Bolt can read; text made safe.

No body, however malformed, gets an HTTP 500: without a valid signature it is 401, signed
but unreadable it is 400.
"""

from __future__ import annotations

import json
import random
import time
import urllib.parse

from tests.slack.conftest import SECRET
from tests.support.slack_sender import mention, signed_headers

ANSWER = {"content": "Garlic Press belongs to Thorinox."}
JSON = "application/json"
FORM = "application/x-www-form-urlencoded"


async def test_malformed_bodies_are_refused_with_4xx_never_500(open_slack_app) -> None:
    async with open_slack_app([ANSWER]) as slack:
        send = slack.sender
        assert (await send.signed(b"[1, 2, 3]"))[0] == 400
        assert (await send.signed(b"payload=not-json", FORM))[0] == 400
        assert (await send.signed(b'{"type": "event_callback", "text": "\xff\xfe"}'))[0] == 400
        assert (await send.signed(b"not json at all {"))[0] in (400, 404)
        assert (await send.signed(b'"a string"'))[0] == 400

        body = json.dumps(send.event_body(mention("C1", "U0GRACE", "hi", "1.1"))).encode()
        headers = signed_headers(SECRET, body)
        assert (await send.raw(body, {**headers, "X-Slack-Request-Timestamp": "soon"}))[0] == 401
        assert (await send.raw(body, {}))[0] == 401
        no_signature = {"X-Slack-Request-Timestamp": str(int(time.time()))}
        assert (await send.raw(body, no_signature))[0] == 401
        assert (await send.raw(b"[1, 2, 3]", {}))[0] == 401
        assert (await send.raw(b"\xff\xfe", {"X-Slack-Signature": "v0=\xe9"}))[0] == 401
    assert not slack.api.made("chat.postMessage")


def garbage(rng: random.Random) -> tuple[bytes, str]:
    """One random body: bytes, a JSON value, a form, or a Slack envelope with wrong shapes."""
    kind = rng.randrange(5)
    if kind == 0:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(64))), JSON
    if kind == 1:
        value = rng.choice(
            [None, 0, -1.5, True, "x", [], [{}], {"a": [1]}, "\u0000", [None] * 3, {"": ""}]
        )
        return json.dumps(value).encode(), JSON
    if kind == 2:
        fields = {
            rng.choice(["payload", "command", "text", "ssl_check", "x"]): rng.choice(
                ["", "not-json", "[]", "{}", "1", '{"type": 5}', "\x00", "%ff"]
            )
            for _ in range(rng.randrange(1, 4))
        }
        return urllib.parse.urlencode(fields).encode(), FORM
    if kind == 3:
        shapes = [None, 5, "s", [], {}, [1], {"type": 1}, {"type": "message"}]
        envelope = {
            key: rng.choice(shapes)
            for key in ("type", "event", "team", "authorizations", "event_id", "user", "actions")
            if rng.random() < 0.6
        }
        return json.dumps(envelope).encode(), JSON
    payload = {"type": rng.choice(["block_actions", "view_submission", "shortcut", 3])}
    if rng.random() < 0.7:
        payload["actions"] = rng.choice([[], [{}], [{"action_id": "agentloop_approve"}], "x"])
    if rng.random() < 0.5:
        payload["user"] = rng.choice([{}, "U1", {"id": 1}, None])
    return urllib.parse.urlencode({"payload": json.dumps(payload)}).encode(), FORM


async def test_no_garbage_body_gets_a_5xx(open_slack_app) -> None:
    rng = random.Random(20261124)
    seen: dict[int, int] = {}
    async with open_slack_app([]) as slack:
        for _ in range(150):
            body, content_type = garbage(rng)
            for status in (
                (await slack.sender.signed(body, content_type))[0],
                (await slack.sender.raw(body, {}, content_type))[0],
            ):
                assert status < 500, (status, body)
                seen[status] = seen.get(status, 0) + 1
    assert seen.get(401) == 150  # every unsigned body
    assert seen.get(400, 0) > 0


async def test_nul_bytes_and_lone_surrogates_are_cleaned_before_anything_is_stored(
    open_slack_app, workspace_url: str, tmp_path
) -> None:
    transcript = tmp_path / "requests.jsonl"
    async with open_slack_app(
        [ANSWER], database_url=workspace_url, scripted_transcript=transcript
    ) as slack:
        event = mention("C1", "U0GRACE", "who owns Garlic\u0000 Press?\ud800", "100.1")
        body = json.dumps(slack.sender.event_body(event, "Ev0NUL\u0000\udfff")).encode()
        assert b"\\u0000" in body and b"\\ud800" in body
        assert (await slack.sender.signed(body))[0] == 200
        await slack.api.wait_for_answer(ANSWER["content"])
        history = await slack.history("T0TEAM:C1:100.1")
        assert await slack.processed("Ev0NUL\ufffd") == 1
        inputs = [run.input_text for run in await slack.runs("T0TEAM:C1:100.1")]
    assert history[0].text == "who owns Garlic Press?\ufffd"
    assert inputs == ["who owns Garlic Press?\ufffd"]
    [sent] = [json.loads(line) for line in transcript.read_text().splitlines()]
    assert "who owns Garlic Press?\ufffd" in sent["messages"][-1]["data"]["content"]
