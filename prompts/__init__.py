"""Prompt sections as text files, with typed render functions; nodes never build prompts inline."""
