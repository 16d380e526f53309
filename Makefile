# nod: `make run` brings the whole system up; `make test` runs every test.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
PACKAGES := gen/python libs/nodkit libs/nodtest services/claims services/approvals services/browser services/payments demo
STAMP := $(VENV)/.installed

.PHONY: setup run test lint bench gen check-gen clean

setup: $(STAMP)

$(STAMP): requirements.txt $(foreach p,$(PACKAGES),$(p)/pyproject.toml) scripts/gen_protos.py $(shell find protos -name '*.proto')
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --disable-pip-version-check -r requirements.txt
	$(PIP) install --quiet --disable-pip-version-check --no-deps --no-build-isolation $(foreach p,$(PACKAGES),-e $(p))
	$(PY) scripts/gen_protos.py
	touch $(STAMP)

gen: setup
	$(PY) scripts/gen_protos.py

run: setup
	$(PY) scripts/run.py

# Real PostgreSQL and real Chromium are required: a missing one fails, never
# skips. pytest's exit code 5 (no tests collected) is a failure too.
test: setup
	@$(PY) -m pytest $(PYTEST_ARGS); status=$$?; \
	if [ $$status -eq 5 ]; then echo "make test: pytest collected no tests"; exit 1; fi; \
	exit $$status

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

bench: setup
	$(PY) bench/claims_bench.py

clean:
	-test -x $(PY) && $(PY) scripts/nodrun/postgres.py stop
	rm -rf $(VENV) var .pytest_cache
