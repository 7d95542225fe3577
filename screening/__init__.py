"""Checks on what goes in and out.

The prompt-injection guard, the output sanitizer and the rules verify holds an answer to.
"""
