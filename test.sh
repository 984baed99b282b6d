#!/usr/bin/env bash
# tokensieve's tests, on a fresh machine too (installs what it needs).
#
#   bash test.sh          the quick check a contributor runs after a change (minutes):
#                         fmt, clippy, the Rust tests (unit, doctests, vectors, proptests),
#                         the conformance vectors through the CLI, the C and PHP bindings on
#                         every vector (no valgrind) and the Python binding's tests
#   bash test.sh --full   everything (what CI runs): the above, plus rustdoc with -D warnings,
#                         the alloc-off and no_std builds, the 100 MB arguments, the side by
#                         side with @ai-sdk-tool/parser, valgrind over the C and PHP bindings,
#                         the Python binding from a fresh venv with mypy --strict, and the fuzz
#                         smoke
set -euo pipefail
cd "$(dirname "$0")"
full=0
case "${1:-}" in
  --full) full=1 ;;
  --quick | "") ;;
  -h | --help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "usage: bash test.sh [--full]" >&2; exit 2 ;;
esac
export TOKENSIEVE_TEST_FULL=$full

# Each step prints the minutes since the start: CI must finish within 90 minutes on 2 cores.
step() { printf '\n==> %s   [%d:%02d]\n' "$*" $((SECONDS / 60)) $((SECONDS % 60)); }

step "toolchain components"
rustup component add rustfmt clippy >/dev/null 2>&1 || echo "(rustup components unavailable; using what is installed)"

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy --all-targets -D warnings"
cargo clippy --workspace --all-targets -- -D warnings

if [ "$full" = 1 ]; then
  step "cargo doc (missing docs and broken links are errors)"
  RUSTDOCFLAGS="-D warnings" cargo doc -q --no-deps -p tokensieve
fi

step "cargo test --workspace"
cargo test --workspace

if [ "$full" = 1 ]; then
  step "tests with alloc off (zero allocations, state size, unit tests)"
  cargo test -p tokensieve --no-default-features --lib --tests

  step "calls far past max_call_bytes lose nothing (100 MB argument per dialect, release build)"
  cargo test --release -p tokensieve --test large -- --ignored

  step "no_std build"
  if rustup target add thumbv7em-none-eabihf >/dev/null 2>&1; then
    cargo build -p tokensieve --no-default-features --target thumbv7em-none-eabihf
  else
    echo "(thumbv7em-none-eabihf unavailable here: building --no-default-features for the host)"
    cargo build -p tokensieve --no-default-features
  fi
fi

step "conformance vectors through the CLI (chunk sizes 1, 2, 3, 5, 7, 64, whole)"
cargo build -q -p tokensieve-cli
cli="$PWD/target/debug/tokensieve parse"
for dialect in $(target/debug/tokensieve dialects --names); do
  dirs=("conformance/cases/$dialect")
  if [ -d ../shared/conformance/cases ]; then
    dirs+=("../shared/conformance/cases/$dialect")
  fi
  for dir in "${dirs[@]}"; do
    [ -d "$dir" ] || continue
    echo "-- $dir"
    python3 conformance/check.py --cmd "$cli" --cases "$dir" -q
  done
done

echo "-- host-defined dialects (conformance/custom/<family>.json and its vectors)"
for dir in conformance/custom/*/; do
  python3 conformance/check.py --cmd "$cli" --cases "$dir" -q
done

step "provider vectors through tokensieve decode (providers this build decodes; all are linted)"
python3 conformance/check.py --lint-only --cases conformance/providers -q
python3 conformance/providers/bedrock/make.py --check
for provider in $(target/debug/tokensieve providers --names); do
  for dir in "conformance/providers/$provider" "../shared/conformance/providers/$provider"; do
    [ -d "$dir" ] || continue
    echo "-- $dir"
    python3 conformance/check.py --cmd "$PWD/target/debug/tokensieve decode" --cases "$dir" -q
  done
done

if [ "$full" = 1 ] && [ -d ../shared/anchors/aisdk/cases ]; then
  step "side by side with @ai-sdk-tool/parser (recorded outputs; every difference explained)"
  python3 benches/aisdk/compare.py --no-live --strict --bin target/debug/tokensieve
fi

if [ -f ffi-c/test.sh ]; then
  step "C ABI and PHP bindings"
  if [ "$full" = 1 ]; then bash ffi-c/test.sh; else bash ffi-c/test.sh --quick; fi
fi

if [ -f py/test.sh ]; then
  step "Python binding (fresh venv, pip install ./py, pytest, mypy --strict)"
  if [ "$full" = 1 ]; then bash py/test.sh; else bash py/test.sh --quick; fi
fi

# --- JavaScript / WebAssembly (js/, issue 26) ---
if [ -f js/test.sh ]; then
  step "JS package over WebAssembly (js/build.sh, node --test; --full: check.py over js/cli.mjs)"
  if [ "$full" = 1 ]; then bash js/test.sh; else bash js/test.sh --quick; fi
fi
# --- end JavaScript ---

if [ "$full" = 1 ] && [ -f fuzz/run.sh ]; then
  step "fuzz smoke (every target, fixed seed and run count, seeds and the committed corpus; debug assertions on)"
  bash fuzz/run.sh --debug-assertions --smoke
fi

step "all tests passed"
