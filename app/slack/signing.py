"""Slack's request signature (v0), checked on the raw bytes before anything reads the body."""

from __future__ import annotations

import hashlib
import hmac

MAX_AGE_S = 300


def signature_problem(
    secret: str, body: bytes, timestamp: str | None, signature: str | None, now: float
) -> str | None:
    """Return why a request's signature is not Slack's (one short line), or None when it is.

    The signature is `v0=` + HMAC-SHA256 of `v0:{timestamp}:{body}` with the signing secret;
    a timestamp over five minutes off is refused so a captured request cannot be replayed.
    """
    if not timestamp or not signature:
        return "missing X-Slack-Request-Timestamp or X-Slack-Signature"
    if not (timestamp.isascii() and timestamp.isdigit()):
        return "X-Slack-Request-Timestamp is not a number"
    if abs(now - int(timestamp)) > MAX_AGE_S:
        return "X-Slack-Request-Timestamp is too far from now"
    if not signature.isascii():
        return "X-Slack-Signature is not a v0 signature"
    base = b"v0:" + timestamp.encode() + b":" + body
    expected = "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected, signature):
        return "the signature does not match"
    return None
