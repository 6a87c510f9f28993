# Two commands: `make run` (install + start the app) and `make test` (install + run the tests).
VENV ?= .venv
PY := $(VENV)/bin/python
PORT ?= 8501
TEST_WORKERS ?= 2

.PHONY: run test bench install cli warm-up

$(VENV)/.installed: requirements.txt
	python3 -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install -r requirements.txt
	touch $@

install: $(VENV)/.installed

# The statistics kernels compiled once into .venv/noisefloor-cache (core.kernel_cache), so no
# command, page or test waits on numba, and the shipped scifact vectors spot-checked once
# (core.retrieval.spot_record), so the first page visit does not; quiet and about 0.3 s when ready.
warm-up: $(VENV)/.installed
	@$(PY) -m core warm-up

run: warm-up
	$(PY) -m streamlit run app.py --server.port $(PORT)

# pytest exit code 5 means "no tests collected": treat it as a failure. TEST_WORKERS pytest-xdist
# workers share the cores (tests/conftest.py keeps each file, and all browser tests, on one).
test: warm-up
	@$(PY) -m pytest -n $(TEST_WORKERS) --dist loadscope; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "ERROR: pytest collected no tests"; exit 1; fi; exit $$rc

# The CLI with the project's Python: make cli ARGS="compare data/demo_golden.csv --json"
cli: warm-up
	@$(PY) -m core $(ARGS)

bench: warm-up
	$(PY) bench/run.py
