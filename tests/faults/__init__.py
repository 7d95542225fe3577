"""Fault injection: crashes, database restarts, model outages, bad input, concurrent writers."""
