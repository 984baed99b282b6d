#!/usr/bin/env bash
# Reproduces every figure of benches/README.md with one command:
#
#   bash benches/run.sh            # full run (criterion defaults of the benches: 10 samples, 3 s)
#   bash benches/run.sh --quick    # smoke: 1 s per benchmark
#   bash benches/run.sh --no-compare   # tokensieve only (does not build the Rust peers)
#
# Steps: generate the inputs (benches/data, once), criterion throughput and linearity
# benches (tokensieve and, with the `compare` feature, tool-parser and dynamo-parsers-v2 on
# the same files), allocations per chunk (counting allocator), the peers' output
# differences, the Node prior art (@ai-sdk-tool/parser via ../shared/anchors/aisdk) on the
# same files when node is present, and a Markdown summary with the ratios.
# Results: benches/results/<date>/ (summary.md, *.jsonl, machine.txt).
set -euo pipefail
cd "$(dirname "$0")"
here=$PWD
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$here/../target-bench}"

quick=0
compare=1
for a in "$@"; do
  case "$a" in
    --quick) quick=1 ;;
    --no-compare) compare=0 ;;
    *) echo "usage: $0 [--quick] [--no-compare]" >&2; exit 2 ;;
  esac
done
features=()
[ "$compare" = 1 ] && features=(--features compare)
crit=()
[ "$quick" = 1 ] && crit=(--warm-up-time 0.3 --measurement-time 1 --sample-size 10)

out="$here/results/$(date -u +%Y-%m-%dT%H%M)"
mkdir -p "$out"
{
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //') ($(nproc) cores)"
  echo "memory: $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)"
  echo "kernel: $(uname -sr)"
  echo "rustc: $(rustc -V)"
  echo "tokensieve: $(git -C .. rev-parse --short HEAD 2>/dev/null)$(git -C .. diff --quiet HEAD -- core 2>/dev/null || echo ' + uncommitted core changes')"
  echo "node: $(node -v 2>/dev/null || echo absent)"
  echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$out/machine.txt"

echo "== inputs"
cargo run -q --release --bin gen-data | tee "$out/inputs.txt"

echo "== criterion"
# A clean slate: the summary reads every result under target-bench/criterion.
rm -rf "$CARGO_TARGET_DIR/criterion"
mkdir -p "$CARGO_TARGET_DIR/criterion"
cargo bench "${features[@]}" --bench throughput -- "${crit[@]}" 2>&1 | tee "$out/throughput.log"
cargo bench "${features[@]}" --bench linearity -- "${crit[@]}" 2>&1 | tee "$out/linearity.log"

echo "== allocations per chunk"
cargo run -q --release "${features[@]}" --bin allocs | tee "$out/allocs.jsonl"

if [ "$compare" = 1 ]; then
  echo "== peers' output against tokensieve's"
  cargo run -q --release --features compare --bin diff-peers | tee "$out/diff.jsonl"
fi

: > "$out/node.jsonl"
anchor="$here/../../shared/anchors/aisdk"
if command -v node >/dev/null && [ -d "$anchor" ]; then
  echo "== Node prior art on the same files"
  work="$CARGO_TARGET_DIR/aisdk"
  mkdir -p "$work"
  cp -f "$anchor/harness.mjs" "$anchor/package.json" "$anchor/package-lock.json" "$work/"
  chmod u+w "$work"/*
  if [ ! -d "$work/node_modules/@ai-sdk-tool/parser" ]; then
    (cd "$work" && npm ci --no-audit --no-fund >/dev/null)
  fi
  runs=3
  [ "$quick" = 1 ] && runs=1
  limit=90
  for pair in hermes:hermes morph-xml:morph-xml qwen3-coder:qwen3coder; do
    d=${pair%%:*}
    p=${pair#*:}
    for feed in direct stream; do
      for chunk in 4 65536; do
        # --size-mb tiny: the sample (our file) is used once, not repeated.
        set +e
        row=$(cd "$work" && timeout "$limit" node harness.mjs bench "$p" \
          --tools "$here/data/tools.aisdk.json" --sample "$here/data/mixed-$d.txt" \
          --size-mb 0.000001 --chunks "$chunk" --runs "$runs" --feed "$feed")
        rc=$?
        set -e
        if [ "$rc" = 124 ]; then
          row="{\"protocol\":\"$p\",\"feed\":\"$feed\",\"chunkBytes\":$chunk,\"timedOutSeconds\":$limit}"
        fi
        [ -n "$row" ] && echo "$row" | sed "s/^{/{\"file\":\"mixed-$d.txt\",/" | tee -a "$out/node.jsonl"
      done
    done
  done
else
  echo "== node or ../shared/anchors/aisdk absent: Node prior art skipped"
fi

echo "== summary"
cargo run -q --release --bin summarize -- --criterion "$CARGO_TARGET_DIR/criterion" \
  --allocs "$out/allocs.jsonl" --node "$out/node.jsonl" --diff "$out/diff.jsonl" \
  | tee "$out/summary.md"
echo "results in $out"
