# Every target sets up what it needs: a fresh clone only needs Python 3.11+ and make.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-dev-local

.PHONY: install chat test lint format diagram bench clean

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	# The 'local' extra builds llama-cpp-python from source once (~10 min on 2 cores);
	# pip caches the wheel, so later installs take seconds.
	$(PY) -m pip install --quiet -e '.[dev,local]'
	# The embedded model reads the tools' examples once per machine (about seven minutes).
	$(VENV)/bin/agentloop prepare
	touch $(STAMP)

install: $(STAMP)

## The main job: a conversation on the embedded defaults (local model, SQLite, demo workspace).
chat: $(STAMP)
	$(VENV)/bin/agentloop db upgrade
	$(VENV)/bin/agentloop seed --demo
	$(VENV)/bin/agentloop chat

## The whole test suite (PostgreSQL tests use 127.0.0.1:5432, each run in a fresh database).
test: $(STAMP)
	$(PY) -m pytest -q

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

format: $(STAMP)
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

## Print the Mermaid diagram of the compiled graph (the README's "The graph" section).
diagram: $(STAMP)
	@$(PY) -c "import asyncio; from graph.builder import make_graph; \
		print(asyncio.run(make_graph()).get_graph().draw_mermaid())"

bench: $(STAMP)
	$(PY) -m bench

clean:
	rm -rf $(VENV) .agentloop .pytest_cache .mypy_cache .ruff_cache
