# The two commands of the README's quick start:
#   make run    set everything up, then run the arena server with its embedded defaults
#   make test   set everything up, then run the whole test suite
# Everything is installed into .venv by the project's own files; nothing by hand.

PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
STAMP   = $(VENV)/.installed

.PHONY: setup run test bench clean browsers kits

$(STAMP): pyproject.toml setup.py $(wildcard arena/games/*/*.pyx) $(wildcard bots/*/*.pyx)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,cluster]'
	touch $(STAMP)

setup: $(STAMP)

run: setup
	mkdir -p tournaments
	$(BIN)/arena serve --house random --tournaments tournaments

# The web interface's tests drive Debian's Chromium with Playwright (never `playwright
# install`): installed here when missing (as root, as in CI).
CHROMIUM ?= /usr/bin/chromium

browsers:
	@test -x $(CHROMIUM) || { apt-get update && apt-get install -y chromium; }

# The starter kits (examples/, docs/bots.md) are built and played by the tests: Node and
# npm, gcc, and Go with Debian's gorilla/websocket (GOPATH mode: no module proxy) are
# installed here when missing (as root, as in CI); each kit's own steps are in its README.
# Ruby runs the acceptance bot written from the docs alone (tests/acceptance/ruby).
GOPATH_DEBIAN = /usr/share/gocode

kits:
	@command -v node >/dev/null && command -v npm >/dev/null || { apt-get update && apt-get install -y nodejs npm; }
	@command -v cc >/dev/null || { apt-get update && apt-get install -y gcc; }
	@command -v go >/dev/null && test -d $(GOPATH_DEBIAN)/src/github.com/gorilla/websocket || \
		{ apt-get update && apt-get install -y golang-go golang-github-gorilla-websocket-dev; }
	@command -v ruby >/dev/null || { apt-get update && apt-get install -y ruby; }

test: setup browsers kits
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python -m pytest

bench: setup
	for script in bench/bench_*.py; do $(BIN)/python $$script || exit 1; done

clean:
	rm -rf $(VENV) build *.egg-info
	find . -name '*.so' -not -path './$(VENV)/*' -delete
