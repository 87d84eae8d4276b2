# Two commands for a fresh machine: `make app` and `make test` (see README.md).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
INDEX_ROOT ?= indexes
DEFAULT_INDEX := $(INDEX_ROOT)/bbc-news
PORT ?= 8501
export TOKENIZERS_PARALLELISM := false

.PHONY: app test lint venv default-index clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# Stamps re-run pip only when a requirements file changes.
$(VENV)/.runtime-installed: requirements.txt | $(BIN)/python
	$(BIN)/pip install -r requirements.txt
	touch $@

$(VENV)/.dev-installed: requirements.txt requirements-dev.txt $(VENV)/.runtime-installed
	$(BIN)/pip install -r requirements-dev.txt
	touch $@

venv: $(VENV)/.runtime-installed

# Builds BBC News with minilm only when absent (a no-op otherwise).
default-index: $(VENV)/.runtime-installed
	$(BIN)/python -m indexer default --out $(DEFAULT_INDEX)

app: default-index
	BERTSCOPE_INDEX_ROOT=$(INDEX_ROOT) $(BIN)/streamlit run app/Home.py --server.port $(PORT) \
		--server.headless true --browser.gatherUsageStats false

test: $(VENV)/.dev-installed
	$(BIN)/python -m pytest

lint: $(VENV)/.dev-installed
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
