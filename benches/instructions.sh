#!/usr/bin/env bash
# Instruction counts of the hot path (callgrind: deterministic, unaffected by load), one line
# per input and chunk size, for before/after tables:
#
#   bash benches/instructions.sh [OUT.tsv]
#
# Builds the `profile` driver of this checkout (release, into target-bench unless
# CARGO_TARGET_DIR says otherwise), generates the inputs, and runs each input once under
# callgrind. Compare two commits by running it in a worktree of each
# (`git worktree add /tmp/base COMMIT && bash /tmp/base/benches/instructions.sh base.tsv`).
set -euo pipefail
cd "$(dirname "$0")"
here=$PWD
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$here/../target-bench}"
command -v valgrind >/dev/null || { echo "valgrind is needed (apt-get install valgrind)" >&2; exit 2; }
cargo build -q --release --bin profile --bin gen-data
"$CARGO_TARGET_DIR/release/gen-data" >/dev/null
out="${1:-/dev/stdout}"
cases=(
  prose 4 prose 65536
  mixed-passthrough 4 mixed-passthrough 65536
  mixed-anthropic-xml 4 mixed-anthropic-xml 65536
  mixed-hermes 4 mixed-hermes 65536
  mixed-morph-xml 4 mixed-morph-xml 65536
  mixed-qwen3-coder 4 mixed-qwen3-coder 65536
  longarg-anthropic-xml-1m 65536 longarg-hermes-1m 65536
  longarg-morph-xml-1m 65536 longarg-qwen3-coder-1m 65536
)
{
  printf 'input\tchunk\tinstructions\n'
  set -- "${cases[@]}"
  while [ $# -ge 2 ]; do
    input=$1 chunk=$2
    shift 2
    ir=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null \
      "$CARGO_TARGET_DIR/release/profile" "$input" "$chunk" 1 2>&1 |
      sed -n 's/.*Collected : *\([0-9]*\).*/\1/p')
    printf '%s\t%s\t%s\n' "$input" "$chunk" "$ir"
  done
} >"$out"
