# Fresh machine: `make demo` and `make test` create the virtual environments, install, and run.
PYTHON  ?= python3
VENV    ?= .venv
BIN      = $(VENV)/bin
STAMP    = $(VENV)/.installed
# pycanon (the independent cross-check) pins old numpy/pandas: it gets its own environment
PYCANON_VENV  ?= .venv-pycanon
PYCANON_STAMP  = $(PYCANON_VENV)/.installed

.PHONY: demo test bench bench-small install clean

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

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/milp-anon demo

# two workers (pytest-xdist) on the two cores; work stealing, since a few hypothesis tests run minutes
TEST_WORKERS ?= 2

test: $(STAMP) $(PYCANON_STAMP)
	MILP_ANON_PYCANON=$(PYCANON_VENV)/bin/python $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist worksteal

bench: $(STAMP)
	$(BIN)/python -m benchmarks.k_anonymity

# the committed small suite (exact algorithms vs MILP, heuristic gaps); plots need the [plot] extra
bench-small: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,plot]'
	$(BIN)/python -m benchmarks benchmarks/suites/small.toml --out benchmarks/results/small

clean:
	rm -rf $(VENV) $(PYCANON_VENV) build *.egg-info .pytest_cache .hypothesis
