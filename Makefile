# nod: `make run` brings the whole system up; `make test` runs every test.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
UV := $(VENV)/bin/uv
STAMP := $(VENV)/.installed
PROJECTS := $(wildcard pyproject.toml gen/python/pyproject.toml libs/*/pyproject.toml services/*/pyproject.toml demo/pyproject.toml gateway/pyproject.toml)
# Every package but the workspace root, each checked by deptry on its own.
PACKAGES := $(patsubst %/pyproject.toml,%,$(filter-out pyproject.toml,$(PROJECTS)))
# uv never fetches a Python of its own, and copies files out of its cache
# (the cache and the checkout may be on different file systems).
export UV_PYTHON_DOWNLOADS := never
export UV_LINK_MODE := copy
# Python keeps the bytecode it compiles, here and in what the tests start,
# even where the machine says not to (PYTHONDONTWRITEBYTECODE): make test
# starts service processes hundreds of times, and each one compiling
# SQLAlchemy, gRPC and pydantic from source took 2.6 s of CPU to import
# where reading the kept bytecode takes 1.1 s. `uv sync --compile-bytecode`
# compiles the installed packages once, at setup.
unexport PYTHONDONTWRITEBYTECODE

# buf (the contracts' checks) comes from npm, exactly as tools/package-lock.json
# pins it; install scripts stay off, so nothing is fetched but the packages.
TOOLS := tools/node_modules/.package-lock.json

.PHONY: setup run test soak lint contracts accept-protos bench gen check-gen lock clean images config-docs hostile screens look-bench

setup: $(STAMP)

# Exactly what uv.lock pins (--locked fails if a pyproject changed without
# `make lock`), then the generated code.
$(STAMP): uv.lock $(PROJECTS) scripts/gen_protos.py $(shell find protos -name '*.proto')
	test -x $(UV) || { $(PYTHON) -m venv $(VENV) && $(PYTHON) scripts/bootstrap_uv.py $(VENV); }
	$(UV) sync --quiet --locked --all-packages --compile-bytecode --python $(PY)
	$(PY) scripts/gen_protos.py
	touch $(STAMP)

$(TOOLS): tools/package.json tools/package-lock.json
	cd tools && npm ci --ignore-scripts --no-audit --no-fund

# Re-resolves the Python packages, and tools/package-lock.json from tools/package.json.
lock:
	$(UV) lock
	cd tools && npm install --package-lock-only --ignore-scripts --no-audit --no-fund

gen: setup
	$(PY) scripts/gen_protos.py

# The committed generated code is what the protos make (tests check it too).
check-gen: setup
	$(PY) scripts/gen_protos.py --check

run: setup
	$(PY) scripts/run.py

# docs/CONFIGURATION.md, from the settings classes (scripts/config_reference.py);
# `make lint` fails while it is stale.
config-docs: setup
	$(PY) scripts/config_reference.py

# buf lint and buf breaking against the contracts as last accepted
# (protos/accepted.binpb); see scripts/contracts.py.
contracts: setup $(TOOLS)
	$(PY) scripts/contracts.py check

# A proto change is meant: it becomes the baseline deployed clients are held to.
accept-protos: setup $(TOOLS)
	$(PY) scripts/contracts.py accept

# Real PostgreSQL and real Chromium are required: a missing one fails, never
# skips. pytest's exit code 5 (no tests collected) is a failure too.
# Spread over three processes (pytest-xdist), each test module whole on one
# of them: most of a test's time is spent waiting on services and Chromium.
# PYTEST_ARGS="-n 0" runs in this process alone.
PYTEST_ARGS ?= -n 3 --dist loadscope
test: setup $(TOOLS)
	@$(PY) -m pytest $(PYTEST_ARGS); status=$$?; \
	if [ $$status -eq 5 ]; then echo "make test: pytest collected no tests"; exit 1; fi; \
	exit $$status

lint: setup check-gen contracts
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports
	# Every fault point in the code is listed in nodkit.fault_points, and back.
	$(PY) scripts/fault_points.py
	# docs/CONFIGURATION.md says what the settings classes read (make config-docs).
	$(PY) scripts/config_reference.py --check
	$(UV) lock --check
	# Each package declares exactly what it imports ([tool.deptry] in its pyproject).
	for package in $(PACKAGES); do (cd $$package && NO_COLOR=1 $(abspath $(VENV))/bin/deptry --no-ansi .) || exit 1; done
	# The Dockerfiles (hadolint, one pattern) and the Kubernetes manifests as
	# rendered (Kubernetes schemas, checkov).
	$(PY) -m scripts.nodeploy.check

# One image per service and the gateway (docs/DEPLOYING.md), from the
# repository root: make images CONTAINER=podman IMAGE_PREFIX=registry.example/
CONTAINER ?= docker
IMAGE_PREFIX ?=
IMAGE_TAG ?= 0.1.0
images:
	for svc in claims approvals payments browser tasks gateway; do \
	  $(CONTAINER) build --file deploy/docker/$$svc.Dockerfile --tag $(IMAGE_PREFIX)nod-$$svc:$(IMAGE_TAG) . || exit 1; \
	done

# The deep fault tier (soak/run.py): every fault point with every action,
# three times over; the storms ten times and the state machines fifty times
# their make-test size, then a 10-minute mixed load with a kill every 30 s;
# prints a table.
soak: setup
	$(PY) -m soak.run

# The hostile pages (tests/test_hostile_pages.py, docs/HOSTILE_PAGES.md):
# every case run once, then the table of where each private value went.
# Exits as the module did (any count above 0 fails it).
# CASES=part,part runs only the cases whose names hold one of the parts.
HOSTILE_TABLE := var/hostile-table.txt
hostile: setup
	@mkdir -p var; rm -f $(HOSTILE_TABLE)
	@NOD_HOSTILE_TABLE=$(HOSTILE_TABLE) NOD_HOSTILE_CASES="$(CASES)" $(PY) -m pytest -n 0 -q \
	  tests/test_hostile_pages.py > var/hostile-pytest.log 2>&1; status=$$?; \
	if [ -f $(HOSTILE_TABLE) ]; then cat $(HOSTILE_TABLE); else tail -40 var/hostile-pytest.log; fi; \
	echo "(pytest's output: var/hostile-pytest.log)"; exit $$status

# The look bench (services/tasks/tests/look_bench.py, docs/LOOKS.md): a
# cut-off at each boundary of a sign-in, a payment and an app action, then
# Look for me on the uncertain step; prints per kind how many a look
# resolved. Not part of make test. Fails on a wrong finding or anything a
# look typed or sent. LOOK_BENCH_ROUNDS=N repeats every cut N times (2);
# CASES=part,part runs only the cuts whose names hold one of the parts.
LOOK_TABLE := var/look-bench.txt
LOOK_BENCH_ROUNDS ?= 2
look-bench: setup
	@mkdir -p var; rm -f $(LOOK_TABLE)
	@LOOK_BENCH_TABLE=$(LOOK_TABLE) LOOK_BENCH_CASES="$(CASES)" LOOK_BENCH_ROUNDS=$(LOOK_BENCH_ROUNDS) $(PY) -m pytest -n 0 -q \
	  services/tasks/tests/look_bench.py > var/look-bench-pytest.log 2>&1; status=$$?; \
	if [ -f $(LOOK_TABLE) ]; then cat $(LOOK_TABLE); else tail -40 var/look-bench-pytest.log; fi; \
	echo "(pytest's output: var/look-bench-pytest.log)"; exit $$status

# The person's view of the demo tasks and the ordinary mistakes, photographed
# at 1280 and 390 px into docs/screens/ (the README shows some of them).
screens: setup
	rm -rf docs/screens
	NOD_TEST_ARTIFACTS=docs/screens $(PY) -m pytest -n 0 -q gateway/tests/test_person_view.py \
	  gateway/tests/test_demo_purchase.py gateway/tests/test_look_for_me.py

bench: setup
	$(PY) bench/claims_bench.py
	$(PY) bench/replicas_bench.py
	$(PY) bench/enter_private_bench.py
	$(PY) bench/pattern_entry_bench.py
	$(PY) bench/egress_bench.py
	$(PY) bench/app_entry_bench.py
	$(PY) bench/tasks_bench.py
	$(PY) bench/gateway_bench.py
	$(PY) bench/memory_bench.py
	$(PY) bench/chromium_bench.py

# Leaves nothing that can't be decrypted: the database make run created is
# dropped with var/; one it found keeps its vault key (scripts/nodrun/clean.py).
clean:
	if test -x $(PY); then $(PY) scripts/nodrun/clean.py var; \
	else find var -mindepth 1 -maxdepth 1 ! -name vault.key ! -name created-database -exec rm -rf {} + 2>/dev/null; true; fi
	rm -rf $(VENV) .pytest_cache .mypy_cache tools/node_modules
