# Quick start: `make demo` (set-up, then an audit of synthetic samples) and `make test`.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
DEMO_DIR := samples
DEMO_OUT := out/demo
AXE := $(VENV)/axe/node_modules/axe-core/axe.min.js

.PHONY: setup system-deps demo test bench clean

$(BIN)/python:
	command -v $(PYTHON) >/dev/null || { echo "clausemill needs Python 3.11 ($(PYTHON))"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

# torch is installed first, pinned, so nothing that depends on it pulls another build.
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e '.[model,test]'
	touch $@

system-deps:
	./ops/install-system-deps.sh

setup: system-deps $(VENV)/.installed

demo: setup
	$(BIN)/clausemill samples $(DEMO_DIR)
	$(BIN)/clausemill clauses shipped
	$(BIN)/clausemill audit $(DEMO_DIR) --out $(DEMO_OUT)
	@echo "Open $(DEMO_OUT)/report.html"

# axe-core, from the npm registry into the git-ignored venv: the accessibility test runs it in Chromium.
$(AXE):
	npm install -q --no-audit --no-fund --prefix $(VENV)/axe axe-core@4.14.1

test: setup
	./ops/install-system-deps.sh --test
	$(MAKE) --no-print-directory $(AXE)
	# Two processes, a test file each at a time, the slowest first (tests/conftest.py
	# SLOWEST_FIRST): half the suite's time is spent waiting on workers, services and faults
	# (the multi-host file alone, about 8 minutes, mostly waits).
	$(BIN)/pytest -q -n 2 --dist loadfile --no-loadscope-reorder

bench: setup
	$(BIN)/python ops/benchmarks/pipeline_throughput.py

clean:
	rm -rf $(DEMO_DIR) out .pytest_cache
