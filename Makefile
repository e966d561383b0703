# Everyday entry points. Setup steps leave stamps in .stamps/ keyed on their inputs, so re-running
# `make test` only redoes what changed (pyproject.toml -> venv, package-lock.json -> node_modules).

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PORT   ?= 8000
STAMPS := .stamps

.PHONY: all venv node_modules chromium build serve test bench clean
.DEFAULT_GOAL := build

all: test

venv: $(STAMPS)/venv
node_modules: $(STAMPS)/node_modules
chromium: $(STAMPS)/chromium

$(STAMPS)/venv: pyproject.toml
	@mkdir -p $(STAMPS)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet -e '.[test]'
	@touch $@

$(STAMPS)/node_modules: package.json package-lock.json
	@mkdir -p $(STAMPS)
	npm ci --no-audit --no-fund
	@touch $@

# Playwright's own browser when its download works; otherwise the distribution's chromium, which
# tests/browser.py finds on its own. Only "no browser at all" is an error.
$(STAMPS)/chromium: $(STAMPS)/venv
	@mkdir -p $(STAMPS)
	@if [ -n "$${PROOFROOM_CHROMIUM:-}" ] && [ -x "$${PROOFROOM_CHROMIUM}" ]; then \
		echo "chromium: using PROOFROOM_CHROMIUM=$${PROOFROOM_CHROMIUM}"; \
	elif $(PY) -m playwright install chromium; then \
		echo "chromium: using Playwright's browser"; \
	elif command -v chromium >/dev/null 2>&1; then \
		echo "chromium: Playwright download failed; using $$(command -v chromium)"; \
	else \
		echo "chromium: Playwright download failed; installing the distribution package"; \
		SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
		$$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium \
		|| { $$SUDO apt-get update && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; } \
		|| { echo "chromium: no browser available; set PROOFROOM_CHROMIUM=/path/to/chromium" >&2; exit 1; }; \
	fi
	@touch $@

build: venv node_modules
	$(PY) build.py --out dist

serve: venv node_modules build
	$(PY) tools/serve.py --dir dist --port $(PORT)

test: venv node_modules chromium
	$(PY) -m pytest

# BENCH_OUT (and any other environment) passes straight through to the benchmark.
bench: venv node_modules chromium
	$(PY) -m bench

clean:
	rm -rf dist .stamps .pytest_cache .hypothesis bench-results.json
	find . -name __pycache__ -type d -not -path './.venv/*' -not -path './node_modules/*' -prune -exec rm -rf {} +
