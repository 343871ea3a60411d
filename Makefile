# The two commands of the README's quick start:
#   make run    set everything up, then run the arena server with its embedded defaults
#   make test   set everything up, then run the whole test suite
# Everything is installed into .venv by the project's own files; nothing by hand.
# docs/development.md explains the build, the ARENA_PURE build and the coverage figure.

PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
STAMP   = $(VENV)/.installed
PURE    = build/pure
COVER   = build/coverage

.PHONY: setup build run test test-pure test-floors bench clean browsers kits services sandbox

# The environment and the dependencies, again whenever pyproject.toml changes. The
# build tools (pyproject's build-system requirements) go in first, so that pip and
# `make build` compile with the same Cython.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet "setuptools>=77" "Cython>=3.0"
	$(BIN)/python -m pip install --quiet --no-build-isolation -e '.[test,cluster]'
	touch $(STAMP)

# The compiled modules, on every `make setup`, `make test` and `make run`: the build is
# incremental (by the SHA-256 of every source, a second or two when nothing changed), so
# an edit to any compiled source (.py, .pyx, .pxd) always takes effect. arena/compiled.py
# keeps an extension that is older than its sources from loading anyway.
build: $(STAMP)
	$(BIN)/python setup.py --quiet build_ext --inplace

setup: build

run: setup
	mkdir -p tournaments
	$(BIN)/arena serve --house random --tournaments tournaments

# The web interface's tests drive Debian's Chromium with Playwright (never `playwright
# install`): installed here when missing (as root, as in CI).
CHROMIUM ?= /usr/bin/chromium

browsers:
	@test -x $(CHROMIUM) || { apt-get update && apt-get install -y chromium; }

# The starter kits (examples/, docs/bots.md) are built and played by the tests: Node and
# npm, gcc, a JDK (javac 17), and Go with Debian's gorilla/websocket (GOPATH mode: no module proxy) are
# installed here when missing (as root, as in CI); each kit's own steps are in its README.
# Debian's python3-websockets is the system Python's, for the Python kit hosted (its sandbox
# runs /usr/bin/python3, which sees no virtual environment).
# Ruby runs the acceptance bot written from the docs alone (tests/acceptance/ruby).
GOPATH_DEBIAN = /usr/share/gocode

kits:
	@command -v node >/dev/null && command -v npm >/dev/null || { apt-get update && apt-get install -y nodejs npm; }
	@test -d /usr/lib/python3/dist-packages/websockets || { apt-get update && apt-get install -y python3-websockets; }
	@command -v cc >/dev/null || { apt-get update && apt-get install -y gcc; }
	@command -v go >/dev/null && test -d $(GOPATH_DEBIAN)/src/github.com/gorilla/websocket || \
		{ apt-get update && apt-get install -y golang-go golang-github-gorilla-websocket-dev; }
	@command -v ruby >/dev/null || { apt-get update && apt-get install -y ruby; }
	@command -v javac >/dev/null || { apt-get update && apt-get install -y default-jdk-headless; }

# The services the tests talk to: PostgreSQL (the storage tests, tests/storage: trust
# authentication on 127.0.0.1, the role root, the databases test and root), and Redis and
# NATS with JetStream (the cluster's). The project's machines run them before each session
# and CI; where one does not answer on its port it is installed from Debian's packages
# (as root, as in CI) and started here. `make run` needs none of them (SQLite).
answers = $(PYTHON) -c "import socket; socket.create_connection(('127.0.0.1', $(1)), 2)" 2>/dev/null
wait_for_port = for i in $$(seq 100); do $(call answers,$(1)) && break; sleep 0.1; done

services:
	@$(call answers,5432) || { \
	    command -v pg_ctlcluster >/dev/null || { apt-get update && apt-get install -y postgresql; }; \
	    version=$$(pg_lsclusters --no-header | awk 'NR == 1 {print $$1}'); \
	    if [ -z "$$version" ]; then \
	        version=$$(ls /usr/lib/postgresql | sort -n | tail -1); pg_createcluster $$version main; fi; \
	    hba=/etc/postgresql/$$version/main/pg_hba.conf; \
	    grep -q '^host all all 127.0.0.1/32 trust' $$hba || sed -i '1i host all all 127.0.0.1/32 trust' $$hba; \
	    pg_ctlcluster --skip-systemctl-redirect $$version main start \
	        || pg_ctlcluster --skip-systemctl-redirect $$version main reload; \
	    $(call wait_for_port,5432); \
	    su postgres -c "psql -qc 'CREATE ROLE root SUPERUSER LOGIN'" 2>/dev/null; \
	    for db in test root; do su postgres -c "createdb -O root $$db" 2>/dev/null; done; \
	    $(call answers,5432); }
	@$(call answers,6379) || { \
	    command -v redis-server >/dev/null || { apt-get update && apt-get install -y redis-server; }; \
	    redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save '' --appendonly no; \
	    $(call wait_for_port,6379); $(call answers,6379); }
	@$(call answers,4222) || { \
	    command -v nats-server >/dev/null || { apt-get update && apt-get install -y nats-server; }; \
	    nohup nats-server -js -a 127.0.0.1 -p 4222 -sd /var/lib/nats-jetstream >/dev/null 2>&1 & \
	    $(call wait_for_port,4222); $(call answers,4222); }

# Hosted bots run under Debian's bubblewrap (arena/sandbox, docs/security.md "Hosted
# bots"); their tests build a bot in every language the sandbox builds, with the
# system's toolchains: Python 3, gcc and g++, and the kits' Node, Go and JDK. Installed
# here when missing (as root, as in CI); `make test` sets ARENA_REQUIRE_SANDBOX, so a
# machine without them fails the sandbox tests instead of skipping them.
sandbox: kits
	@command -v bwrap >/dev/null || { apt-get update && apt-get install -y bubblewrap; }
	@test -x /usr/bin/python3 || { apt-get update && apt-get install -y python3; }
	@command -v c++ >/dev/null || { apt-get update && apt-get install -y g++; }

# Two processes (pytest-xdist), module by module: tests/conftest.py says which modules
# one process runs together (those that run sandboxes) and which go first (the slowest).
# `make test PARALLEL=` runs it in one process.
PARALLEL ?= -n 2 --dist loadgroup

# The whole suite on the compiled build (with the browser tests: a missing browser is
# an error here, not a skip), then the core tests on the ARENA_PURE=1 build; the line
# coverage of both runs together is printed at the end.
test: setup browsers kits services sandbox
	rm -rf $(COVER) && mkdir -p $(COVER)
	PATH="$(CURDIR)/$(BIN):$$PATH" ARENA_REQUIRE_BROWSER=1 ARENA_REQUIRE_SANDBOX=1 \
	    COVERAGE_FILE="$(CURDIR)/$(COVER)/main" \
	    $(BIN)/python -m pytest $(PARALLEL) --cov --cov-report=
	$(MAKE) --no-print-directory test-pure
	$(MAKE) --no-print-directory test-floors
	$(BIN)/python -m coverage combine --quiet --keep --data-file="$(COVER)/all" \
	    "$(COVER)/main" "$(COVER)/pure"
	@echo "coverage: $$($(BIN)/python -m coverage report --data-file="$(COVER)/all" \
	    --format=total)% of the lines of arena, bots, protocol and clients (both runs;" \
	    "per file: $(BIN)/coverage report --data-file=$(COVER)/all)"

# The core tests (rules, referee, match loop, the compiled bots, protocol, build) on a
# copy of the sources built with ARENA_PURE=1: no plain .py module is compiled there, so
# nothing compiled can stand in for them (the Cython cores are the same as this build's;
# the other games and tournaments use no compiled plain module but the match loop, which
# the substitution tests drive).
PURE_TESTS = tests/substitution tests/strategies tests/protocol \
             tests/test_movestring.py tests/test_registry.py tests/test_bot_specs.py \
             tests/test_bot_prepare.py tests/test_build.py tests/test_doctests.py

test-pure: build
	rm -rf $(PURE) && mkdir -p $(PURE)/build $(COVER)
	cp -a arena bots protocol clients tests docs examples setup.py pyproject.toml README.md \
	    Makefile $(PURE)/
	cp -a build/lib.* $(PURE)/build/  # the cores' last build: nothing to recompile
	cd $(PURE) && ARENA_PURE=1 "$(CURDIR)/$(BIN)/python" setup.py --quiet build_ext --inplace
	cd $(PURE) && ARENA_PURE=1 COVERAGE_FILE="$(CURDIR)/$(COVER)/pure" \
	    "$(CURDIR)/$(BIN)/python" -m pytest -q -p no:cacheprovider --cov --cov-report= \
	    $(PURE_TESTS)

# The libraries whose newer features or internals the code relies on, installed at the
# floors pyproject.toml declares (tests/floors.py reads them) over the environment, and
# the tests that use them: the floors stay true (docs/development.md).
FLOORS = build/floors
FLOOR_PACKAGES = websockets aiohttp msgspec cachetools asyncpg
FLOOR_TESTS = tests/test_floors.py tests/protocol/test_transport.py tests/web/test_api.py \
              tests/web/test_http_limits.py tests/web/test_openapi.py tests/server/test_dispatch.py \
              tests/server/test_fast_path.py tests/server/test_sdk_fast_path.py \
              tests/server/test_ladder_and_http.py tests/server/test_wire_errors.py \
              tests/storage

test-floors: setup
	rm -rf $(FLOORS)
	$(BIN)/python -m pip install --quiet --no-deps --target $(FLOORS) \
	    $$($(BIN)/python -m tests.floors $(FLOOR_PACKAGES))
	PYTHONPATH="$(CURDIR)/$(FLOORS)" ARENA_FLOORS="$(FLOOR_PACKAGES)" \
	    $(BIN)/python -m pytest -q -p no:cacheprovider $(FLOOR_TESTS)

bench: setup
	for script in bench/bench_*.py; do $(BIN)/python $$script || exit 1; done

clean:
	rm -rf $(VENV) build *.egg-info .coverage arena/_extensions.json
	find . -name '*.so' -not -path './$(VENV)/*' -delete
