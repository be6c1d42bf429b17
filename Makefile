# Two entry points (see README.md):
#   make run   - install everything into .venv and run the main job
#   make test  - install everything into .venv and run the whole test suite
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint install bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dask,test]"
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/belote-sim main

test: $(STAMP) lint
	$(BIN)/python -m pytest -n 2 -q

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_engine.py
	$(BIN)/python benchmarks/bench_simulate.py
	$(BIN)/python benchmarks/bench_solver.py

clean:
	rm -rf $(VENV) build *.egg-info
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
