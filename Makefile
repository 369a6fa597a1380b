# rankmeter: `make demo` runs the main job, `make test` runs the whole suite.
# Needs only python3 (>= 3.11) and make; everything else is installed into .venv.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip

.PHONY: demo test test-fast test-duration bench bench-quick lint clean help

help:
	@echo "make demo   - install into .venv and run the demo experiment (writes demo-output/)"
	@echo "make test   - install test extras into .venv, run make lint, then the whole test suite (7-10 min)"
	@echo "make test-fast - the suite without the tests marked slow (under a minute on 2 idle cores)"
	@echo "make lint   - ruff's linter and mypy --strict on src/rankmeter (configuration in pyproject.toml)"
	@echo "make bench  - run the benchmarks (slow; figures in benchmarks/RESULTS-*.md)"
	@echo "make bench-quick - the benchmark regression guard (under a minute): ratios to pytrec_eval vs the reference"

$(BIN)/python:
	$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "rankmeter needs Python >= 3.11")'
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip

$(VENV)/.demo-installed: pyproject.toml | $(BIN)/python
	$(PIP) install -q -e ".[report]"
	touch $@

$(VENV)/.test-installed: pyproject.toml | $(BIN)/python
	$(PIP) install -q -e ".[test]"
	touch $@

$(VENV)/.bench-installed: pyproject.toml | $(BIN)/python
	$(PIP) install -q -e ".[test,bench]"
	touch $@

demo: $(VENV)/.demo-installed
	$(BIN)/rankmeter demo --out demo-output

lint: $(VENV)/.test-installed
	$(BIN)/ruff check src/rankmeter
	$(BIN)/mypy src/rankmeter

# the expected duration first, before the lint and the install
test-duration:
	@echo "make test: lint, then the whole suite: about 13 minutes on 2 idle cores, longer on a busy machine" \
		"(make test-fast skips the tests marked slow: under a minute)"

test: test-duration lint $(VENV)/.test-installed
	$(BIN)/python -m pytest -n 2 --dist loadgroup -q

test-fast: $(VENV)/.test-installed
	@echo "make test-fast: the suite without the tests marked slow: under a minute on 2 idle cores"
	$(BIN)/python -m pytest -n 2 --dist loadgroup -q -m "not slow"

bench: $(VENV)/.bench-installed
	@for b in benchmarks/bench_*.py; do [ $$b = benchmarks/bench_quick.py ] && continue; \
		echo "== $$b"; $(BIN)/python $$b || exit 1; done

bench-quick: $(VENV)/.bench-installed
	$(BIN)/python benchmarks/bench_quick.py

clean:
	rm -rf $(VENV) demo-output .pytest_cache .hypothesis benchmarks/_data
