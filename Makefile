# The two entry points the README opens with.
.PHONY: setup run test bench

setup:
	bash scripts/setup.sh

run: setup
	.venv/bin/accord run

test: setup
	bash scripts/setup_test.sh
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .
	.venv/bin/lint-imports
	bash scripts/check_base_install.sh
	.venv/bin/python -m pytest -q

bench: setup
	.venv/bin/python benchmarks/consensus.py
