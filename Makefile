# Two commands on a fresh machine: `make synth` and `make test`. Everything installs into .venv
# and node_modules from pinned files (requirements.lock, package-lock.json); nothing global.
SHELL := /bin/bash
ENV ?= dev
CONFIG ?= config
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
CDK := npx --no-install cdk
export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION := 20
export PYTHONDONTWRITEBYTECODE := 1
# Tests keep compiled modules (and pytest's rewritten test modules) out of the tree, in one cache that every
# worker and every child process (akb local, akb ask ...) reuses: a run compiles nothing the previous one did.
TEST_BYTECODE := PYTHONDONTWRITEBYTECODE= PYTHONPYCACHEPREFIX=$(CURDIR)/.build/pycache
# What tests compiled under /tmp (pytest's numbered temporary directories) is never read again: pruned first.
PRUNE_TMP_BYTECODE := rm -rf $(CURDIR)/.build/pycache/tmp

.PHONY: help setup synth synth-pipeline deploy-pipeline test test-fast lint typecheck fmt clean deploy diff lock validate local emulator scan checkov-lock eval-doc playground-screenshot

# Unit tests only: no synth, no server, no subprocess (tests/conftest.py marks those from what each test uses).
# Folders whose every test synthesizes are not even collected, so aws_cdk is never imported; bytecode
# (and pytest's rewritten test modules) is cached under .build/, so a second run skips compiling.
FAST_TESTS := tests/contract tests/features tests/policies tests/schema tests/lambdas tests/client tests/local
# What mypy checks: every product package and the CDK entry point (tests/ and bench/ are not product code).
TYPED := contract features schema stacks cdk_constructs monitoring policies lambdas local client security app.py

help:  ## List the targets with what each does
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*## "} {printf "  %-13s %s\n", $$1, $$2}'

$(BIN)/.installed: requirements.lock pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements.lock
	$(BIN)/pip install --quiet --no-deps --no-build-isolation -e .
	touch $@

# checkov pins an older boto3 than the app: it gets its own virtualenv, never .venv.
CHECKOV_VENV := .venv-checkov
SCAN_ENVS ?= dev prod
SCAN_OUT := .build/scan

$(CHECKOV_VENV)/.installed: security/requirements-checkov.lock
	$(PYTHON) -m venv $(CHECKOV_VENV)
	$(CHECKOV_VENV)/bin/pip install --quiet --upgrade pip
	$(CHECKOV_VENV)/bin/pip install --quiet -r security/requirements-checkov.lock
	touch $@

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

setup: $(BIN)/.installed node_modules/.installed  ## Create .venv and node_modules from the lock files

synth: setup  ## Synthesize ENV (default dev) from CONFIG (default config/) into cdk.out/
	$(CDK) synth --quiet -c env=$(ENV) -c config=$(CONFIG)

PIPELINE ?= $(CONFIG)/pipeline.yaml

synth-pipeline: setup  ## Synthesize the promotion pipeline from PIPELINE (default config/pipeline.yaml; docs/pipeline.md)
	@test -f $(PIPELINE) || { echo "No $(PIPELINE): the pipeline is opt-in (docs/pipeline.md; example: config/examples/pipeline.yaml)"; exit 1; }
	$(CDK) synth --quiet -c pipeline=$(PIPELINE) -c config=$(CONFIG)

deploy-pipeline: setup  ## Deploy the pipeline stack into the tooling account (needs its credentials; docs/pipeline.md)
	@test -f $(PIPELINE) || { echo "No $(PIPELINE): the pipeline is opt-in (docs/pipeline.md)"; exit 1; }
	$(CDK) deploy akb-pipeline -c pipeline=$(PIPELINE) -c config=$(CONFIG) --require-approval broadening

validate: $(BIN)/.installed  ## Check ENV's config without synthesizing
	$(BIN)/akb validate --env $(ENV) --config $(CONFIG)

test: setup  ## Run every test (unit, synth, endpoint, end-to-end against the local emulator)
	$(PRUNE_TMP_BYTECODE)
	$(TEST_BYTECODE) $(BIN)/python -m pytest -n 3 --dist loadgroup

# Two xdist workers, like `make test`: the unit tests are many small ones, and one core each halves the wait.
test-fast: $(BIN)/.installed  ## Unit tests only (no synth, no server, no subprocess): seconds, for the edit loop
	$(PRUNE_TMP_BYTECODE)
	$(TEST_BYTECODE) $(BIN)/python -m pytest -n 2 $(FAST_TESTS) -m "not synth and not server and not slow"

local: $(BIN)/.installed  ## akb local: the emulator + the first tenant's endpoint on 127.0.0.1 (Ctrl-C stops)
	$(BIN)/akb local --env $(ENV) --config $(CONFIG)

emulator: $(BIN)/.installed  ## akb emulator: the local Bedrock emulator alone on 127.0.0.1:8081 ($$AKB_EMULATOR_PORT)
	$(BIN)/akb emulator

eval-doc: $(BIN)/.installed  ## Rerun the sample evaluation (local emulator, fresh) and rewrite docs/evaluation.md's results tables
	rm -rf .build/eval-sample
	$(BIN)/akb eval --local --dataset local/eval/sample.jsonl --out .build/eval-sample --update-doc docs/evaluation.md
	cp .build/eval-sample/recall_by_hops.png docs/img/eval-emulator-recall-by-hops.png
	cp .build/eval-sample/cost_vs_recall.png docs/img/eval-emulator-cost-vs-recall.png

playground-screenshot: $(BIN)/.installed  ## docs/img/playground.png: akb playground --local in headless /usr/bin/chromium after one question
	$(BIN)/python -m tests.client.playground.screenshot docs/img/playground.png

# The pipeline's own templates (akb-pipeline, its cross-region support stack) sit at the top of its
# assembly; its stages' templates (assembly-*/) are the SCAN_ENVS stacks again and are not rescanned.
SCAN_PIPELINE ?= config/examples/pipeline.yaml

scan: setup $(CHECKOV_VENV)/.installed  ## checkov over synths of SCAN_ENVS (dev prod) and the example pipeline; fails on a finding not in security/checkov-skips.yaml
	rm -rf $(SCAN_OUT)
	for env in $(SCAN_ENVS); do $(CDK) synth --quiet -c env=$$env -c config=$(CONFIG) --output $(SCAN_OUT)/$$env || exit 1; done
	$(CDK) synth --quiet -c pipeline=$(SCAN_PIPELINE) -c config=$(CONFIG) --output $(SCAN_OUT)/pipeline
	$(BIN)/python -m security.checkov_scan $(addprefix $(SCAN_OUT)/,$(SCAN_ENVS)) $(SCAN_OUT)/pipeline

checkov-lock:  ## Re-pin checkov: fresh install of security/requirements-checkov.in, frozen into the .lock
	rm -rf $(CHECKOV_VENV) && $(PYTHON) -m venv $(CHECKOV_VENV)
	$(CHECKOV_VENV)/bin/pip install --quiet -r security/requirements-checkov.in
	{ head -2 security/requirements-checkov.lock; $(CHECKOV_VENV)/bin/pip freeze | grep -v '^\(pip\|setuptools\|wheel\)=='; } > security/requirements-checkov.lock.new
	mv security/requirements-checkov.lock.new security/requirements-checkov.lock
	touch $(CHECKOV_VENV)/.installed

lint: $(BIN)/.installed  ## ruff check (rules in pyproject.toml) and ruff format --check
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(BIN)/.installed  ## mypy with the pydantic plugin over the product code (settings in pyproject.toml)
	$(BIN)/mypy $(TYPED)

fmt: $(BIN)/.installed  ## Apply ruff's fixes and formatting
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

diff: setup  ## cdk diff of ENV against what is deployed (needs AWS credentials)
	$(CDK) diff -c env=$(ENV) -c config=$(CONFIG)

deploy: setup  ## Deploy every stack of ENV (needs AWS credentials for ENV's account)
	$(CDK) deploy --all -c env=$(ENV) -c config=$(CONFIG) --require-approval broadening

lock:  ## Re-pin Python dependencies after editing requirements.in or lambdas/requirements.in
	uv pip compile requirements.in -o requirements.lock --python-version 3.11 --python-platform x86_64-manylinux2014 -q
	uv pip compile lambdas/requirements.in -o lambdas/requirements.lock --python-version 3.14 --python-platform aarch64-manylinux2014 -q

clean:  ## Remove build output and caches
	rm -rf cdk.out .build .pytest_cache .ruff_cache .mypy_cache $(CHECKOV_VENV)
	find . -name __pycache__ -type d -prune -not -path './.venv/*' -not -path './node_modules/*' -exec rm -rf {} +
