#!/usr/bin/env bash
# Instruction-level profiles of the hot paths (callgrind; deterministic, independent of load):
#
#   bash benches/profile.sh [INPUT CHUNK]...
#
# Default: the mixed anthropic-xml transcript in 4-byte chunks, 64 KiB prose, the mixed
# hermes transcript and the 1 MB hermes argument in 64 KiB chunks. For each: instructions in
# total, per chunk and per byte, and the top functions (self cost) with their call counts.
# Writes benches/results/profile-<date>/.
#
#   bash benches/profile.sh --counts [OUT.tsv]
#
# Instruction counts only, one line per standard input and chunk size (the before/after
# tables of benches/README.md): compare two commits by running it in a worktree of each
# (`git worktree add /tmp/base COMMIT && bash /tmp/base/benches/profile.sh --counts base.tsv`).
#
#   bash benches/profile.sh --peers FAMILY PEER... [BYTES]
#
# Instructions per 4-byte chunk of tokensieve and each named peer (`Peer::name`, feature
# `compare`) on the first BYTES (default 100 000) of mixed-FAMILY, minus the same
# contender's run on 0 bytes (loading the file, building the parser): the tables of
# "side by side" in benches/README.md.
set -euo pipefail
cd "$(dirname "$0")"
here=$PWD
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$here/../target-bench}"
command -v valgrind >/dev/null || { echo "valgrind is needed (apt-get install valgrind)" >&2; exit 2; }
if [ "${1:-}" = "--peers" ]; then
  shift
  family=$1
  shift
  bytes=100000
  if [ $# -gt 0 ] && [[ "${!#}" =~ ^[0-9]+$ ]]; then
    bytes=${!#}
    set -- "${@:1:$#-1}"
  fi
  cargo build -q --profile profiling --features compare --bin profile --bin gen-data
  "$CARGO_TARGET_DIR/profiling/gen-data" >/dev/null
  # Prints "CHUNKS INSTRUCTIONS" of one run (chunks as the driver counted them).
  count() {
    PROFILE_BYTES=$1 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
      "$CARGO_TARGET_DIR/profiling/profile" "mixed-$family" 4 1 "$2" 2>&1 |
      sed -n -e 's/.*(\([0-9]*\) chunks).*/\1/p' -e 's/.*Collected : *\([0-9]*\).*/\1/p' | tr '\n' ' '
  }
  printf 'contender\tchunks\tinstructions per chunk\n'
  for who in tokensieve "$@"; do
    read -r chunks total <<<"$(count "$bytes" "$who")"
    read -r _ base <<<"$(count 0 "$who")"
    printf '%s\t%s\t%s\n' "$who" "$chunks" "$(( (total - base + chunks / 2) / chunks ))"
  done
  exit 0
fi
cargo build -q --profile profiling --bin profile --bin gen-data
"$CARGO_TARGET_DIR/profiling/gen-data" >/dev/null
if [ "${1:-}" = "--counts" ]; then
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
    for ((k = 0; k < ${#cases[@]}; k += 2)); do
      input=${cases[k]} chunk=${cases[k + 1]}
      ir=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        "$CARGO_TARGET_DIR/profiling/profile" "$input" "$chunk" 1 2>&1 |
        sed -n 's/.*Collected : *\([0-9]*\).*/\1/p')
      printf '%s\t%s\t%s\n' "$input" "$chunk" "$ir"
    done
  } >"${2:-/dev/stdout}"
  exit 0
fi
out="$here/results/profile-$(date -u +%Y-%m-%dT%H%M)"
mkdir -p "$out"
if [ $# -eq 0 ]; then
  set -- mixed-anthropic-xml 4 prose 65536 mixed-anthropic-xml 65536 mixed-hermes 65536 longarg-hermes-1m 65536
fi
# `head` closes pipes early: no pipefail in the report loop.
set +o pipefail
while [ $# -ge 2 ]; do
  input=$1 chunk=$2
  shift 2
  f="$out/callgrind.$input.$chunk"
  valgrind --tool=callgrind --callgrind-out-file="$f" "$CARGO_TARGET_DIR/profiling/profile" "$input" "$chunk" 1 2>/dev/null
  bytes=$(stat -c %s "data/$input.txt")
  total=$(callgrind_annotate "$f" 2>/dev/null | grep 'PROGRAM TOTALS' | awk '{gsub(",","",$1); print $1}')
  chunks=$(( (bytes + chunk - 1) / chunk ))
  echo "## $input, $chunk-byte chunks: $total instructions = $((total / chunks)) per chunk, $(awk "BEGIN {printf \"%.1f\", $total / $bytes}") per byte"
  echo
  echo "| instructions (self) | share | function | calls |"
  echo "| ---: | ---: | --- | ---: |"
  callgrind_annotate --tree=caller "$f" 2>/dev/null > "$f.tree"
  callgrind_annotate "$f" 2>/dev/null | sed -n '/file:function/,$p' | grep -E '^ *[0-9,]+ +\( *[0-9.]+%\) +[^ ]+:[^ ]+ ' | head -12 |
    sed -E 's/^ *([0-9,]+) +\( *([0-9.]+%)\) +[^:]*:([^ ]+).*/\1\t\2\t\3/' |
    while IFS=$'\t' read -r ir pct fn; do
      n=$(awk -v fn="$fn" '
        / < / { if (match($0, /\([0-9,]+x\)/)) { c = substr($0, RSTART + 1, RLENGTH - 3); gsub(",", "", c); acc += c } next }
        /\*  / { if (index($0, ":" fn " ")) { print acc; exit } acc = 0; next }
        { acc = 0 }' "$f.tree")
      echo "| $ir | $pct | \`$fn\` | ${n:-} |"
    done
  echo
done | tee "$out/profile.md"
