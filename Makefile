# Fresh machine: `make demo` and `make test` create the virtual environments, install, and run.
PYTHON  ?= python3
VENV    ?= .venv
BIN      = $(VENV)/bin
STAMP    = $(VENV)/.installed
# pycanon (the independent cross-check) pins old numpy/pandas: it gets its own environment
PYCANON_VENV  ?= .venv-pycanon
PYCANON_STAMP  = $(PYCANON_VENV)/.installed

DEV_STAMP = $(VENV)/.installed-dev

.PHONY: demo test lint docs bench bench-small install clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

$(PYCANON_STAMP):
	$(PYTHON) -m venv $(PYCANON_VENV)
	$(PYCANON_VENV)/bin/python -m pip install --quiet pycanon==1.3.6
	touch $(PYCANON_STAMP)

$(DEV_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,dev]'
	touch $(DEV_STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/milp-anon demo
	@echo "The command is $(BIN)/milp-anon (or: source $(BIN)/activate, then milp-anon --help)."

# ruff (lint and import order), mypy (the public API and the bottom layers), the layers contract
# (import-linter, pyproject.toml) and the import graph's circles (tests/import_graph.py)
lint: $(DEV_STAMP)
	$(BIN)/ruff check milp_anon tests benchmarks
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/python tests/import_graph.py

# the API reference, generated from the docstrings into docs/api/ (not committed): every layer's package
API_MODULES = milp_anon milp_anon.api milp_anon.runtime milp_anon.solvers milp_anon.tables milp_anon.privacy \
	milp_anon.release milp_anon.heuristics milp_anon.exact milp_anon.instance milp_anon.formulations \
	milp_anon.bounds milp_anon.search milp_anon.reduction milp_anon.pipeline milp_anon.scoring \
	milp_anon.certify milp_anon.bench milp_anon.cli

docs: $(DEV_STAMP)
	$(BIN)/pdoc $(API_MODULES) -o docs/api --docformat restructuredtext
	@echo "The API reference: docs/api/index.html"

# two workers (pytest-xdist) on the two cores; work stealing, since a few hypothesis tests run minutes
TEST_WORKERS ?= 2

test: lint $(PYCANON_STAMP)
	MILP_ANON_PYCANON=$(PYCANON_VENV)/bin/python $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist worksteal

bench: $(STAMP)
	$(BIN)/python -m benchmarks.k_anonymity

# the committed small suite (exact algorithms vs MILP, heuristic gaps); plots need the [plot] extra
bench-small: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,plot]'
	$(BIN)/python -m benchmarks benchmarks/suites/small.toml --out benchmarks/results/small

clean:
	rm -rf $(VENV) $(PYCANON_VENV) build *.egg-info .pytest_cache .hypothesis docs/api
