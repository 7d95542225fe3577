"""A Langfuse stand-in on loopback: the OTLP/HTTP traces the SDK exports, and the scores it
sends to Langfuse's score API (`POST /api/public/scores`, a JSON list); keeps both."""

from __future__ import annotations

import gzip
import json
import threading
import uuid
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue

from core.observability.tracing import Tracing
from core.settings_sections import LangfuseSection

TRACES_PATH = "/api/public/otel/v1/traces"
SCORES_PATH = "/api/public/scores"
"""Where the SDK's score consumer sends batches of scores (JSON, not OTLP)."""


@dataclass(frozen=True)
class ReceivedSpan:
    """One exported span, with ids as hex and attributes as Python values."""

    name: str
    trace_id: str
    span_id: str
    parent_span_id: str
    attributes: dict[str, Any]
    start_ns: int
    end_ns: int

    def json_attr(self, key: str) -> Any:
        """Return a JSON-encoded Langfuse attribute (input, output, usage) decoded."""
        value = self.attributes.get(key)
        return json.loads(value) if isinstance(value, str) else value


class OtlpReceiver:
    """Serves `POST /api/public/otel/v1/traces` and `/api/public/scores` on 127.0.0.1.

    A context manager.
    """

    def __init__(self) -> None:
        self.spans: list[ReceivedSpan] = []
        self.scores: list[dict[str, Any]] = []
        """Every score received, as the SDK sent it (API field names: traceId, …), in order."""
        self.authorizations: list[str] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        """The Langfuse base URL pointing here."""
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> OtlpReceiver:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def named(self, name: str) -> list[ReceivedSpan]:
        """Every received span called `name`."""
        return [span for span in self.spans if span.name == name]

    def _record(self, body: bytes, authorization: str) -> None:
        request = ExportTraceServiceRequest()
        request.ParseFromString(body)
        with self._lock:
            self.authorizations.append(authorization)
            for resource in request.resource_spans:
                for scope in resource.scope_spans:
                    for span in scope.spans:
                        self.spans.append(
                            ReceivedSpan(
                                name=span.name,
                                trace_id=span.trace_id.hex(),
                                span_id=span.span_id.hex(),
                                parent_span_id=span.parent_span_id.hex(),
                                attributes={a.key: _value(a.value) for a in span.attributes},
                                start_ns=span.start_time_unix_nano,
                                end_ns=span.end_time_unix_nano,
                            )
                        )

    def _score(self, body: bytes, authorization: str) -> None:
        with self._lock:
            self.authorizations.append(authorization)
            self.scores.extend(json.loads(body))

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                if self.path == SCORES_PATH:
                    receiver._score(body, self.headers.get("Authorization", ""))
                    answer = b'{"message": "Accepted"}'
                    self.send_response(202)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(answer)))
                    self.end_headers()
                    self.wfile.write(answer)
                    return
                if self.path != TRACES_PATH:
                    self.send_response(404)
                    self.end_headers()
                    return
                receiver._record(body, self.headers.get("Authorization", ""))
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                return

        return Handler


def _value(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [_value(item) for item in value.array_value.values]
    if kind == "kvlist_value":
        return {item.key: _value(item.value) for item in value.kvlist_value.values}
    return getattr(value, kind) if kind else None


def tracing_to(base_url: str, mask_fields: str = "", **section: Any) -> Tracing:
    """Tracing to `base_url` under a fresh public key (Langfuse keeps one client per key)."""
    settings = LangfuseSection(
        public_key=f"pk-lf-{uuid.uuid4().hex}",
        secret_key="sk-lf-test",
        base_url=base_url,
        **section,
    )
    return Tracing(settings, mask_fields)
