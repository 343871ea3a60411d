# The two commands of the README's quick start:
#   make run    set everything up, then run the arena server with its embedded defaults
#   make test   set everything up, then run the whole test suite
# Everything is installed into .venv by the project's own files; nothing by hand.

PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
STAMP   = $(VENV)/.installed

.PHONY: setup run test bench clean browsers

$(STAMP): pyproject.toml setup.py $(wildcard arena/games/*/*.pyx) $(wildcard bots/*/*.pyx)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,cluster]'
	touch $(STAMP)

setup: $(STAMP)

run: setup
	$(BIN)/arena serve --house random

# The web interface's tests drive Debian's Chromium with Playwright (never `playwright
# install`): installed here when missing (as root, as in CI).
CHROMIUM ?= /usr/bin/chromium

browsers:
	@test -x $(CHROMIUM) || { apt-get update && apt-get install -y chromium; }

test: setup browsers
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python -m pytest

bench: setup
	for script in bench/bench_*.py; do $(BIN)/python $$script || exit 1; done

clean:
	rm -rf $(VENV) build *.egg-info
	find . -name '*.so' -not -path './$(VENV)/*' -delete
