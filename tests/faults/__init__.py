"""Fault injection: crashes, database restarts, model outages, bad input, concurrent writers.

Each fault and the tests that inject it (those marked `postgres` need the server):

- SIGKILL during an approved tool wave → `resume` in a new process finishes it, each change
  once: `test_kill_during_wave.py`.
- SIGKILL after an approval, during the model call that follows → one task:
  tests/integration/test_confirm_cli.py::test_killed_after_approval_resumes_to_one_task.
- Two processes approving the same change at once → one task:
  tests/integration/test_confirm_cli.py::test_two_processes_approving_at_once_create_one_task.
- PostgreSQL restarted mid-run → ridden out, or a clear failure and a clean resume:
  `test_postgres_restart.py`.
- Model 429 / 5xx / timeouts → retries with backoff, then a graceful answer:
  `test_model_errors.py` (one retried 429 or 500 and a non-retried error are in
  tests/integration/test_openai_provider.py).
- Malformed tool-call JSON → an error the model sees, never a proposal or a run:
  `test_malformed_tool_calls.py` (read-only calls: tests/graph/test_bad_behaviour.py and
  tests/integration/test_openai_provider.py).
- A 1 MB message → answered in well under 10 s, bounded for the model, kept whole in the
  audit: `test_large_message.py`.
- The same thread driven by two processes at once → one after the other, nothing lost:
  `test_concurrent_processes.py`.
"""
