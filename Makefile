# The two commands a newcomer needs: `make manifests` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test
# Everything `render` generates besides deploy/: jsonnet API data, JSON Schemas, API reference, examples
GENERATED := --lib-out libsonnet/paddle-operator/generated --jsonschema-out schemas/jsonschema \
             --api-doc docs/api.md --runtimes-doc docs/runtimes.md \
             --rules-doc docs/validate.md --examples examples
JSONNET_FILES := $(shell find libsonnet examples -name '*.jsonnet' -o -name '*.libsonnet' 2>/dev/null)

.PHONY: manifests check test lint fmt bench kube-schemas clean install uninstall

NODE_TOOLS := $(VENV)/node/.installed
YAML_LANGUAGE_SERVER := yaml-language-server@2.0.0
SARIF_MULTITOOL := @microsoft/sarif-multitool-linux@5.7.0

# The runtime only: the package and its five pinned dependencies from pyproject.toml (about 10 MB
# of wheels, 40 MB installed). `make manifests` needs nothing else.
$(STAMP): pyproject.toml
	@command -v $(PYTHON) >/dev/null || { echo "$(PYTHON) not found: install Python 3.11 or newer" >&2; exit 2; }
	@echo "==> creating $(VENV) (on Debian and Ubuntu this needs the python3-venv package)"
	@$(PYTHON) -m venv $(VENV) || { echo "python3 -m venv failed: on Debian/Ubuntu, apt install python3-venv" >&2; exit 2; }
	@echo "==> installing paddlejob-manifests and its runtime (rjsonnet, jsonschema-rs, PyYAML, orjson, argcomplete; ~10 MB)"
	@$(PY) -m pip install --quiet --upgrade pip
	@$(PY) -m pip install --quiet -e .
	@touch $@

# What the tests add: reference engines, the upstream validators and clients they compare
# against, and paddlepaddle to train rendered jobs for real (about 1.2 GB installed).
$(TEST_STAMP): $(STAMP) requirements-test.txt
	@echo "==> installing the test tools from requirements-test.txt (~300 MB download, ~1.2 GB installed; paddlepaddle is most of it)"
	@$(PY) -m pip install --quiet --progress-bar off -r requirements-test.txt
	@touch $@

# yaml-language-server (what VS Code's YAML extension runs) and Microsoft's SARIF Multitool (it
# validates SARIF files), for the editor and output tests; skipped without npm.
$(NODE_TOOLS): $(STAMP)
	@if command -v npm >/dev/null 2>&1; then \
	  echo "==> installing $(YAML_LANGUAGE_SERVER) and $(SARIF_MULTITOOL) from npm"; \
	  npm install --silent --no-audit --no-fund --prefix $(VENV)/node $(YAML_LANGUAGE_SERVER) $(SARIF_MULTITOOL) \
	    && touch $@; \
	else echo "npm not found: the yaml-language-server tests will be skipped"; fi

## Render deploy/ (and the API data the jsonnet library imports), validating everything first.
manifests: $(STAMP)
	$(PY) -m generator render $(GENERATED)

## Drift check: fail, with the diff, when the committed output differs from a fresh render.
check: $(STAMP)
	$(PY) -m generator render --check --exact $(GENERATED)

## Everything CI runs: lint, drift check, test suite.
test: lint check $(NODE_TOOLS)
	$(PY) -m pytest -q

lint: $(TEST_STAMP)
	$(VENV)/bin/ruff check generator tests bench
	$(VENV)/bin/ruff format --check generator tests bench
	$(PY) -m generator.jsonnetfmt --test $(JSONNET_FILES)

fmt: $(TEST_STAMP)
	$(VENV)/bin/ruff check --fix generator tests bench
	$(VENV)/bin/ruff format generator tests bench
	$(PY) -m generator.jsonnetfmt -i $(JSONNET_FILES)

## Speed, as ratios against baselines measured in the same run (about a minute).
bench: $(TEST_STAMP)
	$(PY) bench/render_bench.py
	$(PY) bench/validate_bench.py

## Re-extract schemas/kubernetes/ from the pinned kubernetes-validate releases (needs PyPI).
kube-schemas: $(TEST_STAMP)
	$(PY) -m generator.kube_extract

## The CLI for your user, as pipx does it: its own virtual environment, a link in ~/.local/bin.
PREFIX ?= $(HOME)/.local
APP    := $(PREFIX)/share/paddlejob-manifests

install:
	$(PYTHON) -m venv $(APP)
	$(APP)/bin/python -m pip install --quiet --upgrade pip
	$(APP)/bin/python -m pip install --quiet .
	mkdir -p $(PREFIX)/bin
	ln -sf $(APP)/bin/paddlejob-manifests $(PREFIX)/bin/paddlejob-manifests
	@echo "installed $(PREFIX)/bin/paddlejob-manifests ($$($(PREFIX)/bin/paddlejob-manifests --version))"

uninstall:
	rm -rf $(APP) $(PREFIX)/bin/paddlejob-manifests

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
