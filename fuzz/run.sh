#!/usr/bin/env bash
# Runs every fuzz target, one after the other, on one core.
#
#   bash fuzz/run.sh [SECONDS_PER_TARGET] [TARGET...]   # default 600 s, every target
#   bash fuzz/run.sh --smoke                            # CI: a fixed seed and run count
#   bash fuzz/run.sh --merge [TARGET...]                # re-minimise the committed corpus
#   bash fuzz/run.sh --keep-going 1800                  # a campaign that goes on after a crash
#                                                       # (libFuzzer -fork=1 -ignore_crashes=1)
#   bash fuzz/run.sh --debug-assertions --keep-going 600   # also the core's debug checks (e.g.
#                                                       # every remembered decision re-decided)
#
# Stable toolchain. No sanitizer for the core's targets (the core is
# `#![forbid(unsafe_code)]`): cargo fuzz run --sanitizer none. The `ffi` target (the C ABI,
# the only unsafe code) runs under AddressSanitizer: RUSTC_BOOTSTRAP=1 lets the stable
# compiler take -Zsanitizer=address; its build lives in target/asan. Seeds:
# fuzz/seeds/<target> (committed; `python3 make_seeds.py` regenerates them from the
# conformance vectors; fast_sieve reads the ffi seeds, fast_json_relaxed the json_relaxed
# ones: same layouts); the corpus: fuzz/corpus/<target> (committed, minimised, so every
# campaign starts where the last one ended: a campaign adds to it, `--merge` minimises it
# again, then commit it; the smoke leaves it alone); crashes: fuzz/artifacts/<target>. Prints
# executions, exec/s, coverage, corpus and findings per target and exits 1 when a target
# found something.
set -euo pipefail
cd "$(dirname "$0")"

secs=600
extra=()
build=()
if [ "${1:-}" = "--debug-assertions" ]; then
  build=(--debug-assertions)
  shift
fi
if [ "${1:-}" = "--keep-going" ]; then
  extra=(-fork=1 -ignore_crashes=1)
  shift
fi
smoke=0
merge=0
if [ "${1:-}" = "--merge" ]; then
  merge=1
  shift
elif [ "${1:-}" = "--smoke" ]; then
  # Reproducible for a given build: a fixed seed, a fixed number of runs (about 20 s per
  # target here) and a fresh corpus (the committed seeds only). Builds in other paths explore
  # slightly differently, so this is a smoke, not a proof; finding new bugs is the campaigns'
  # job.
  smoke=1
  secs=0
  shift
elif [[ "${1:-}" =~ ^[0-9]+$ ]]; then
  secs=$1
  shift
fi
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(sieve_passthrough sieve_anthropic_xml sieve_hermes sieve_morph_xml sieve_qwen3_coder sieve_minimax_m2 sieve_glm_4_5 sieve_harmony sieve_kimi_k2 sieve_deepseek_v3_1 sieve_deepseek_v3 sieve_mistral sieve_llama3_json sieve_pythonic sieve_deepseek_v3_2 sieve_deepseek_v4 sieve_seed_oss sieve_olmo_3 sieve_lfm2 sieve_cohere_command sieve_granite sieve_phi_4_mini sieve_apertus sieve_xlam sieve_gemma_4 sieve_functiongemma sieve_minicpm5 sieve_step_3 sieve_hunyuan sieve_minimax_m3 sieve_inkling sieve_kimi_k3 sieve_described json json_relaxed format ffi fast_sieve fast_json_relaxed
           decode_openai_chat decode_openai_responses decode_anthropic decode_gemini decode_bedrock decode_ollama
           frame_sse frame_json_array frame_event_stream frame_ndjson)
fi

# The seed directory of a target: the cheap targets share their oracle sibling's layout.
seeds_of() {
  case "$1" in
    fast_sieve) echo seeds/ffi ;;
    fast_json_relaxed) echo seeds/json_relaxed ;;
    *) echo "seeds/$1" ;;
  esac
}
# Files and bytes below a directory.
size_of() {
  echo "$(find "$1" -type f | wc -l) $(find "$1" -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}')"
}

if ! command -v cargo-fuzz >/dev/null; then
  cargo install cargo-fuzz --locked
fi
[ -d seeds ] || python3 make_seeds.py

# The minimised findings first (tests/regressions.rs; open ones are #[ignore]d).
[ "$merge" = 1 ] || cargo test --release --quiet
cargo fuzz build --sanitizer none --release "${build[@]}"
asan=(--sanitizer address --target-dir target/asan)
if [[ " ${targets[*]} " == *" ffi "* ]]; then
  RUSTC_BOOTSTRAP=1 cargo fuzz build "${asan[@]}" --release "${build[@]}" ffi
fi

mkdir -p logs
status=0
if [ "$merge" = 1 ]; then
  printf '%-22s %18s %18s\n' target 'files bytes before' 'files bytes after'
else
  printf '%-22s %6s %12s %8s %8s %8s %16s %s\n' target secs execs exec/s cov ft 'corpus (new)' findings
fi
for t in "${targets[@]}"; do
  seeds=$(seeds_of "$t")
  mkdir -p "corpus/$t" "artifacts/$t" "$seeds"
  log="logs/$t.log"
  before=$(find "artifacts/$t" -type f | wc -l)
  san=(--sanitizer none)
  boot=()
  if [ "$t" = ffi ]; then
    san=("${asan[@]}")
    boot=(RUSTC_BOOTSTRAP=1)
  fi
  fuzz=(env "${boot[@]}" cargo fuzz run "${san[@]}" --release "${build[@]}" "$t")
  if [ "$merge" = 1 ]; then
    # libFuzzer's merge into an empty directory: the smallest inputs that keep the features
    # of seeds + corpus; then the seeds themselves out (every run reads them anyway).
    out=$(mktemp -d)
    was=$(size_of "corpus/$t")
    set +e
    "${fuzz[@]}" "$out" "$seeds" "corpus/$t" -- -merge=1 -max_len=8192 -timeout=10 \
      -rss_limit_mb=2048 >"$log" 2>&1
    rc=$?
    set -e
    if [ "$rc" -ne 0 ]; then
      status=1
      echo "--- $t: the merge failed (exit $rc); corpus/$t left as it was; see $log" >&2
      rm -rf "$out"
      continue
    fi
    for f in "$seeds"/*; do
      rm -f "$out/$(sha1sum <"$f" | cut -d' ' -f1)"
    done
    rm -rf "corpus/$t"
    mv "$out" "corpus/$t"
    chmod 755 "corpus/$t"
    printf '%-22s %18s %18s\n' "$t" "$was" "$(size_of "corpus/$t")"
    continue
  fi
  set +e
  if [ "$smoke" = 1 ]; then
    # The seeds and the committed corpus, read only: new inputs go to a scratch directory
    # (libFuzzer writes to its first directory only), so the tree stays as it was.
    corpus_dir=$(mktemp -d)
    inputs=("$seeds")
    [ -d "corpus/$t" ] && inputs+=("corpus/$t")
    # 50 000 runs: ~20 s a target at ~2 500 a second with debug assertions (28 targets must fit
    # in CI's 90 minutes with everything else; the campaigns go deep).
    limits=(-runs=50000 -seed=1)
    # (ffi: two or three streams through the ABI per run, under the sanitizer: ~90 s.)
    # One feed, no oracle: 15 000 (fast_sieve) to 85 000 (fast_json_relaxed) a second.
    [[ "$t" == fast_* ]] && limits=(-runs=500000 -seed=1)
    # (frame_*: four framings of the body per run, one byte per read among them: ~1 000 (SSE)
    # to ~4 000 a second with debug assertions.)
  else
    corpus_dir="corpus/$t"
    inputs=("$seeds")
    limits=(-max_total_time="$secs")
  fi
  files_before=$(find "$corpus_dir" -type f | wc -l)
  "${fuzz[@]}" "$corpus_dir" "${inputs[@]}" -- \
    "${limits[@]}" -dict=dict.txt -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="artifacts/$t/" -print_final_stats=1 "${extra[@]}" >"$log" 2>&1
  rc=$?
  set -e
  last=$(grep -aE '^#[0-9]+' "$log" | tail -1 || true)
  execs=$(echo "$last" | grep -oE '^#[0-9]+' | tr -d '#' || true)
  cov=$(echo "$last" | grep -o 'cov: [0-9]*' | grep -o '[0-9]*' || true)
  ft=$(echo "$last" | grep -o 'ft: [0-9]*' | grep -o '[0-9]*' || true)
  rate=$(grep -aoE 'average_exec_per_sec: *[0-9]+' "$log" | tail -1 | grep -oE '[0-9]+$' || true)
  corpus="$(find "$corpus_dir" -type f | wc -l) (+$(( $(find "$corpus_dir" -type f | wc -l) - files_before )))"
  [ "$smoke" = 1 ] && rm -rf "$corpus_dir"
  found=$(( $(find "artifacts/$t" -type f | wc -l) - before ))
  printf '%-22s %6s %12s %8s %8s %8s %16s %s\n' "$t" "$secs" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "$corpus" "$found"
  if [ "$rc" -ne 0 ] || [ "$found" -gt 0 ]; then
    status=1
    echo "--- $t failed (exit $rc); the end of $log:" >&2
    grep -aE 'panicked|assert|ERROR|SUMMARY|Test unit written' "$log" | head -20 >&2 || true
  fi
done
exit "$status"
