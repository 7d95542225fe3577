"""`python -m app.cli` runs the `agentloop` command."""

from app.cli.main import main

main()
