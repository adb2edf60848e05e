# Two commands: `make run` serves the game, `make test` passes the suite.
# Both create .venv and install what they need on a fresh machine.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
HOST   ?= 0.0.0.0
PORT   ?= 8000

.PHONY: run test lint bench bench-cluster bench-compare bench-soak run-cluster system-deps clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $@ $(VENV)/.installed

run: $(VENV)/.installed
	BANKIT_API_DOCS=true $(BIN)/python -m app --host $(HOST) --port $(PORT)

system-deps:
	@PYTHON=$(BIN)/python bash scripts/install-system-deps.sh

lint: $(VENV)/.installed-test
	$(BIN)/ruff check app tests bench scripts
	$(BIN)/mypy app

# Two workers (pytest-xdist) keep both cores busy: one alone leaves a core idle while it
# waits on servers, browsers and deadlines. A test file runs whole on one worker, so
# that its fixtures (a browser, the axe gallery, a cluster) are made once; tests/schedule.py
# hands the files out browser files first and slowest first, and keeps test_axe.py and
# test_scroll.py on one worker (one gallery).
TEST_WORKERS ?= 2
test: $(VENV)/.installed-test system-deps lint
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile

bench: $(VENV)/.installed-test
	$(BIN)/python -m bench.fanout

# Three processes on ports 8001-8003 sharing a local redis-server of their own.
run-cluster: $(VENV)/.installed
	PYTHON=$(BIN)/python bash scripts/run-cluster.sh

# The scale-out benchmark of docs/performance.md (takes about 15 minutes).
bench-cluster: $(VENV)/.installed-test
	$(BIN)/python -m bench.cluster

# bankit beside a naive FastAPI loop (issue 12; docs/performance.md). ARGS=--quick: ~2 min.
bench-compare: $(VENV)/.installed-test
	$(BIN)/python -m bench.compare $(ARGS)

# 30 minutes of games, dropped phones and spectators against one process (ARGS=--minutes 3).
bench-soak: $(VENV)/.installed-test
	$(BIN)/python -m bench.soak $(ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
