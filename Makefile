# Two entry points (see README): `make demo` runs the main job, `make test` the whole suite.
# Each sets up a pinned virtualenv in .venv first if it is missing or older than pyproject.toml.

PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed

.PHONY: demo test lint gpu-test clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --upgrade pip
	$(VENV)/bin/python -m pip install --quiet -e ".[cpu,dev]"
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/python -m tilelab.demo

test: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/python -m pytest -n 2 --timeout 600 -q

# On a GPU machine with torch and triton already installed (no venv): PYTHONPATH=src.
gpu-test:
	TILELAB_REQUIRE_GPU=1 PYTHONPATH=src:. $(PYTHON) -m pytest tests -q -m gpu

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
