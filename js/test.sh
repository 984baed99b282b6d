#!/usr/bin/env bash
# The npm package's tests (called by ../test.sh):
#   bash js/test.sh --quick   build the .wasm (js/build.sh), npm ci, node --test (every
#                             conformance vector at chunk sizes 1, 7 and whole through the
#                             object API, the stream helpers, …)
#   bash js/test.sh           the above, plus conformance/check.py over js/cli.mjs (the JSON
#                             lines form, the runner's exact comparison) and headless Chromium
#                             over the playground (browser-test.mjs)
set -euo pipefail
cd "$(dirname "$0")"
quick=0
[ "${1:-}" = "--quick" ] && quick=1
if ! command -v node >/dev/null 2>&1; then
  echo "(node not installed: apt-get install -y nodejs npm)"; exit 1
fi
if ! command -v wasm-opt >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  apt-get install -y -q binaryen >/dev/null 2>&1 || echo "(binaryen unavailable: no wasm-opt)"
fi
bash build.sh
if [ -f package-lock.json ]; then npm ci --no-audit --no-fund --loglevel=error; fi
node --test test/
if [ "$quick" = 0 ]; then
  python3 ../conformance/check.py --cmd "node $PWD/cli.mjs" --cases ../conformance/cases \
    --cases ../conformance/providers --sizes 1,7,0 -q
fi
if [ "$quick" = 0 ]; then
  if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get install -y -q chromium >/dev/null 2>&1 || echo "(chromium unavailable)"
  fi
  if command -v chromium >/dev/null 2>&1; then node browser-test.mjs; else echo "(no chromium: browser test skipped)"; fi
fi
