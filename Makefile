# Fresh machine: `make demo` and `make test` create the virtual environments, install, and run.
PYTHON  ?= python3
VENV    ?= .venv
BIN      = $(VENV)/bin
STAMP    = $(VENV)/.installed
# pycanon (the independent cross-check) pins old numpy/pandas: it gets its own environment
PYCANON_VENV  ?= .venv-pycanon
PYCANON_STAMP  = $(PYCANON_VENV)/.installed

.PHONY: demo test bench install clean

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

test: $(STAMP) $(PYCANON_STAMP)
	MILP_ANON_PYCANON=$(PYCANON_VENV)/bin/python $(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python -m benchmarks.k_anonymity

clean:
	rm -rf $(VENV) $(PYCANON_VENV) build *.egg-info .pytest_cache .hypothesis
