# Two entry points (see README.md):
#   make run   - install everything into .venv and run the main job
#   make test  - install everything into .venv and run the whole test suite
#   make docs  - build the manual (docs/, mkdocs.yml) into site/
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint docs install bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dask,test,docs,openspiel,pettingzoo]"
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/belote-sim main

# the manual is built with --strict (mkdocs.yml): a broken link, anchor or API reference
# fails the tests
test: $(STAMP) lint docs
	$(BIN)/python -m pytest -n 2 -q

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_engine.py
	$(BIN)/python benchmarks/bench_simulate.py
	$(BIN)/python benchmarks/bench_solver.py

clean:
	rm -rf $(VENV) build site *.egg-info
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
