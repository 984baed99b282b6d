#!/usr/bin/env bash
# The Python binding's tests, as a user installs it: a fresh venv, `pip install ./py` (pip
# fetches maturin from PyPI and builds the abi3 wheel in release mode, in the workspace's
# target/), then pytest (py/tests) and mypy --strict (stubs, examples, tests/typing_api.py).
# Needs python3 (>= 3.11) with venv and pip, a Rust toolchain, and PyPI.
#
#   bash py/test.sh --quick   reuses the venv when it exists and skips mypy (test.sh's quick
#                             check); the wheel is rebuilt either way
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
venv="$root/target/py-venv"
quick=0
[ "${1:-}" = "--quick" ] && quick=1

if [ "$quick" = 1 ] && [ -x "$venv/bin/python" ]; then
  py="$venv/bin/python"
  "$py" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps ./py
else
  python3 -m venv --clear "$venv"
  py="$venv/bin/python"
  "$py" -m pip install -q --disable-pip-version-check ./py pytest hypothesis mypy
fi
"$py" -c 'import tokensieve, sys; print("tokensieve", tokensieve.__version__, "from", tokensieve.__file__, "on Python", sys.version.split()[0])'

cd py
export HYPOTHESIS_STORAGE_DIRECTORY="$root/target/py-hypothesis"
set +e
"$py" -m pytest tests -q -p no:cacheprovider
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
  echo "py/test.sh: pytest collected no tests" >&2
  exit 1
elif [ "$rc" -ne 0 ]; then
  exit "$rc"
fi

[ "$quick" = 1 ] && exit 0
mypy=("$py" -m mypy --strict --cache-dir "$root/target/py-mypy-cache")
"${mypy[@]}" -p tokensieve            # the installed package: stubs and Python sources agree
"${mypy[@]}" examples tests/typing_api.py bench.py
