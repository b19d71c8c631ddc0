# Two commands set a fresh machine up: `make demo` and `make test` (see README.md).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test check lint types clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

## The main job on the embedded default (SQLite): a multi-session walk-through.
demo: $(STAMP)
	$(BIN)/memory-es demo

## The test suite; the PostgreSQL lane runs when a server answers (CI starts one).
test: $(STAMP)
	$(BIN)/python -m pytest -q $(PYTEST_ARGS)

## Lint and strict typing.
check: lint types

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

types: $(STAMP)
	$(BIN)/mypy

clean:
	rm -rf $(VENV) .memory_es .pytest_cache .mypy_cache .ruff_cache
