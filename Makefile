# Every target sets itself up: a fresh clone needs only python3 (>= 3.10).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: train test smoke bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev,cudasim]'
	touch $(STAMP)

train: $(STAMP)
	$(VENV)/bin/pe train configs/mnist_lenet.yaml

test: $(STAMP)
	$(PY) -m pytest

smoke: $(STAMP)
	$(VENV)/bin/pe smoke

clean:
	rm -rf $(VENV) runs .pytest_cache
