# Everyday entry points. Setup steps leave stamps in .stamps/ keyed on their inputs, so re-running
# `make test` only redoes what changed (pyproject.toml -> venv, package-lock.json -> node_modules).

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PORT   ?= 8000
STAMPS := .stamps

.PHONY: all venv node_modules chromium nginx build serve serve-nginx nginx-conf test bench clean
.DEFAULT_GOAL := build

all: test

venv: $(STAMPS)/venv
node_modules: $(STAMPS)/node_modules
chromium: $(STAMPS)/chromium
nginx: $(STAMPS)/nginx

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

# nginx and Debian's brotli_static module, for `make serve-nginx` and the nginx tests. Installed from
# the distribution when missing (root or sudo), as for chromium. If that fails the stamp is not
# written and make goes on: the nginx tests then fail with tools/nginx.py's one-line reason.
# The tools run as modules (python -m tools.X) from this directory, so this checkout's code is imported.
$(STAMPS)/nginx: $(STAMPS)/venv
	@mkdir -p $(STAMPS)
	@if $(PY) -m tools.nginx --check; then :; else \
		echo "nginx: installing the distribution packages"; \
		SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
		PKGS="nginx libnginx-mod-http-brotli-static"; \
		$$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y $$PKGS \
		|| { $$SUDO apt-get update && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y $$PKGS; } \
		|| echo "nginx: could not install $$PKGS; the nginx tests will fail" >&2; \
	fi
	@if $(PY) -m tools.nginx --check >/dev/null; then touch $@; fi

build: venv node_modules
	$(PY) build.py --out dist

serve: venv node_modules build
	$(PY) -m tools.serve --dir dist --port $(PORT)

# The same dist/ behind nginx with the production config (generated into a temporary prefix; see
# tools/nginx.py). Foreground, no root needed; Ctrl-C stops nginx and removes the prefix.
serve-nginx: venv node_modules nginx build
	$(PY) -m tools.nginx --dir dist --port $(PORT)

# Regenerate deploy/nginx.conf from sitebuild/headers.py (a test fails while they differ).
nginx-conf: venv
	$(PY) -m tools.nginx --deploy-conf > deploy/nginx.conf

# Two workers, one test file each at a time (a file's module fixtures, such as one live page that a
# drag and then a worker crash share, stay in one process): the suite takes about 60% of the time it
# takes in one process on a 2-core machine. TEST_WORKERS=0 runs it in this process.
TEST_WORKERS ?= 2
test: venv node_modules chromium nginx
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile --durations=25

# BENCH_OUT (and any other environment) passes straight through to the benchmark.
bench: venv node_modules chromium
	$(PY) -m bench

clean:
	rm -rf dist .stamps .cache .pytest_cache .hypothesis bench-results.json
	find . -name __pycache__ -type d -not -path './.venv/*' -not -path './node_modules/*' -prune -exec rm -rf {} +
