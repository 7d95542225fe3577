"""Fixtures of the integration tests: an OTLP receiver standing in for Langfuse."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.otlp_receiver import OtlpReceiver


@pytest.fixture
def receiver() -> Iterator[OtlpReceiver]:
    """An OTLP/HTTP receiver on loopback, for the spans a test's runs export."""
    with OtlpReceiver() as server:
        yield server
