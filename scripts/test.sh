#!/usr/bin/env bash
# Install hillclimber with its test tools, then lint, type-check and run every test: first what
# needs no model, no task image and no Harbor (minutes after a light install), then the rest
# after the whole install (which compiles llama.cpp once and fetches the model).
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
pytest_stage() {
  set +e
  .venv/bin/python -m pytest "$@"
  local code=$?
  set -e
  if [ $code -eq 5 ]; then
    echo "pytest collected no tests: that is a failure here" >&2
    code=1
  fi
  return $code
}

bash scripts/install.sh dev light
.venv/bin/ruff check src tests benchmarks scripts
.venv/bin/ruff format --check src tests benchmarks scripts
echo "== stage 1: no model, no images, no Harbor"
pytest_stage -n auto -m "not slow and not model and not images and not harbor" || status=$?

bash scripts/install.sh dev
.venv/bin/mypy  # after the whole install: llama.cpp's binding brings its own types
echo "== stage 2: the model, task images, Harbor and the slow tests"
pytest_stage -m "slow or model or images or harbor" || status=$?
exit $status
