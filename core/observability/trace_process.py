"""The agent's side of the tracer process: start it, send it events, flush it, end it.

Sending never waits: an event is pickled and written straight into the process's pipe
(non-blocking, from the caller's thread: handing each event to a writer thread cost more,
in switches between the two threads, than the write itself). When the pipe is full the
rest waits in a backlog that a thread drains; past `MAX_BACKLOG` bytes events are dropped
and counted. If the process dies, tracing stops with one warning. Either way the agent
carries on untouched.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import logging
import os
import pickle
import select
import struct
import subprocess
import sys
import threading
from collections import deque
from dataclasses import dataclass
from typing import Any

from core.observability.langfuse_client import LangfuseSettings

logger = logging.getLogger(__name__)

HEADER = struct.Struct("!I")
"""The length of each message, before its pickle."""
MAX_BACKLOG = 64 << 20
"""Bytes of events waiting for room in the pipe before new ones are dropped."""
PIPE_SIZE = 1 << 20
"""The pipe's buffer, raised from the 64 KiB default where the system allows."""


@dataclass(frozen=True)
class ToolCallSpan:
    """One tool call as the agent ran it: what the `tool-<name>` span shows."""

    name: str
    args: Any
    output: str
    metadata: dict[str, Any]
    level: str
    start_ns: int
    end_ns: int


class TraceProcess:
    """One tracer process for this agent process, started on the first event."""

    def __init__(self, settings: LangfuseSettings) -> None:
        """Trace to where `settings` say (both keys set)."""
        self.settings = settings
        self.dropped = 0
        """Events dropped because the tracer process was too far behind."""
        self.cpu_seconds = 0.0
        """CPU the tracer process had used at its last flush."""
        self._process: subprocess.Popen[bytes] | None = None
        self._fd = -1
        self._backlog: deque[bytes] = deque()
        self._backlog_bytes = 0
        self._lock = threading.Lock()
        self._backlogged = threading.Event()
        self._acked = threading.Condition()
        self._flushes = 0
        self._acks = 0
        self._dead = False

    @property
    def pid(self) -> int | None:
        """The tracer process's id, once started."""
        return self._process.pid if self._process is not None else None

    @property
    def backlog_bytes(self) -> int:
        """Bytes of events waiting for room in the pipe."""
        return self._backlog_bytes

    def send(self, message: tuple[Any, ...]) -> bool:
        """Pass one event to the tracer process; never blocks, never raises.

        Returns False only when the event cannot be pickled.
        """
        if self._dead:
            return True
        try:
            data = pickle.dumps(message, pickle.HIGHEST_PROTOCOL)
        except Exception:
            return False
        self._put(HEADER.pack(len(data)) + data, droppable=message[0] != "flush")
        return True

    def _put(self, frame: bytes, *, droppable: bool) -> None:
        """Write `frame` to the pipe, or behind the backlog (dropped when that is full)."""
        with self._lock:
            if self._process is None:
                self._start()
            if self._dead:
                return
            if self._backlog:
                if droppable and self._backlog_bytes + len(frame) > MAX_BACKLOG:
                    self.dropped += 1
                    if self.dropped == 1:
                        logger.warning("the tracer process is behind: dropping trace events")
                    return
                self._queue_frame(frame)
                return
            written = self._write(frame)
            if written is not None and written < len(frame):
                self._queue_frame(frame[written:])

    def flush(self, timeout_s: float | None = None) -> bool:
        """Wait until the tracer process has exported every event sent so far."""
        if self._process is None or self._dead:
            return True
        with self._acked:
            self._flushes += 1
            number = self._flushes
        self.send(("flush", number))
        timeout = timeout_s if timeout_s is not None else self.settings.timeout_s + 5.0
        with self._acked:
            return self._acked.wait_for(lambda: self._acks >= number or self._dead, timeout)

    def close(self, timeout_s: float | None = None) -> None:
        """End the tracer process once it has exported everything (it is killed past the time)."""
        process = self._process
        if process is None or self._dead:
            return
        timeout = timeout_s if timeout_s is not None else self.settings.timeout_s + 5.0
        with self._lock:
            # What waits in the backlog goes first; then the end of input tells it to finish.
            os.set_blocking(self._fd, True)
            try:
                while self._backlog:
                    os.write(self._fd, self._backlog.popleft())
                assert process.stdin is not None
                process.stdin.close()
            except OSError:
                pass
            self._backlog_bytes = 0
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            logger.warning("the tracer process did not finish exporting in time; stopping it")
            process.kill()
        self._dead = True

    def _start(self) -> None:
        try:
            self._process = process = subprocess.Popen(
                [sys.executable, "-m", "core.observability.trace_worker"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
            )
        except OSError:
            logger.warning("could not start the tracer process", exc_info=True)
            self._dead = True
            return
        assert process.stdin is not None
        self._fd = process.stdin.fileno()
        if hasattr(fcntl, "F_SETPIPE_SZ"):
            # Over the system's limit the default size still works.
            with contextlib.suppress(OSError):
                fcntl.fcntl(self._fd, fcntl.F_SETPIPE_SZ, PIPE_SIZE)
        options = self.settings.model_dump(mode="python")
        secret = self.settings.secret_key
        options["secret_key"] = secret.get_secret_value() if secret else None
        data = pickle.dumps(("open", options), pickle.HIGHEST_PROTOCOL)
        os.write(self._fd, HEADER.pack(len(data)) + data)
        os.set_blocking(self._fd, False)
        threading.Thread(target=self._drain, name="trace-backlog", daemon=True).start()
        threading.Thread(target=self._read_acks, name="trace-acks", daemon=True).start()
        atexit.register(self.close)

    def _write(self, frame: bytes) -> int | None:
        """Write what the pipe takes of `frame` (caller holds the lock); None: the pipe is gone."""
        try:
            return os.write(self._fd, frame)
        except BlockingIOError:
            return 0
        except OSError:
            self._stopped("the tracer process stopped; tracing is off for this process")
            return None

    def _queue_frame(self, frame: bytes) -> None:
        self._backlog.append(frame)
        self._backlog_bytes += len(frame)
        self._backlogged.set()

    def _drain(self) -> None:
        """Write the backlog as the pipe makes room (the thread sleeps while there is none)."""
        while not self._dead:
            self._backlogged.wait()
            try:
                select.select([], [self._fd], [], 1.0)
            except (OSError, ValueError):
                return
            with self._lock:
                if self._dead or not self._backlog:
                    self._backlogged.clear()
                    continue
                frame = self._backlog.popleft()
                written = self._write(frame)
                if written is None:
                    return
                self._backlog_bytes -= written
                if written < len(frame):
                    self._backlog.appendleft(frame[written:])
                elif not self._backlog:
                    self._backlogged.clear()

    def _read_acks(self) -> None:
        process = self._process
        assert process is not None and process.stdout is not None
        for line in process.stdout:
            try:
                number, cpu = line.split()
            except ValueError:
                continue
            with self._acked:
                self._acks = max(self._acks, int(number))
                self.cpu_seconds = float(cpu)
                self._acked.notify_all()
        if process.wait() != 0:
            self._stopped(f"the tracer process exited with {process.returncode}")
        with self._acked:
            self._dead = True
            self._acked.notify_all()

    def _stopped(self, reason: str) -> None:
        if not self._dead:
            logger.warning(reason)
        with self._acked:
            self._dead = True
            self._acked.notify_all()
