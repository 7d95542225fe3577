"""What gather grounds an answer in.

The context folder of markdown files, and the context block rendered from gathered sources
for the system prompt.
"""
