"""Benchmarks whose numbers are recorded in bench/RESULTS.md."""
