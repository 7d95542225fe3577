"""`python -m app.slack`: the same as `agentloop slack`."""

from app.slack.cli import main

main()
