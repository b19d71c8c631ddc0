# Two commands set a fresh machine up: `make demo` and `make test` (see README.md).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test check lint types clean memory-benchmark memory-benchmark-baseline

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

## The memory benchmark's deterministic arm against its baseline (docs/benchmark.md).
MEMORY_BASELINE := benchmarks/corpus/memory-benchmark.baseline.json
memory-benchmark: $(STAMP)
	$(BIN)/memory-es eval memory-benchmark --deterministic-only

## Re-record that baseline: an explicit removal, then an explicit write (review the diff).
memory-benchmark-baseline: $(STAMP)
	rm -f $(MEMORY_BASELINE)
	$(BIN)/memory-es eval memory-benchmark --deterministic-only --write-baseline $(MEMORY_BASELINE)

## Lint and strict typing.
check: lint types

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

types: $(STAMP)
	$(BIN)/mypy

clean:
	rm -rf $(VENV) .memory_es .pytest_cache .mypy_cache .ruff_cache .hypothesis build *.egg-info
