#!/usr/bin/env bash
# C ABI and PHP binding tests, on a fresh machine too (installs gcc/g++, valgrind, php-cli,
# phpunit, composer, pkg-config, cmake and cbindgen when missing). Called by the repository's
# test.sh; runs alone as
#   bash ffi-c/test.sh
# Steps: build libtokensieve (.so and .a); headers fresh (cbindgen); C tests built with
# gcc -std=c99 -Wall -Wextra -pedantic -Werror and once as C++; the conformance vectors of
# the writers (tests/format.c: tool calls written then parsed back, results, stops, errors);
# every supported dialect through the C API (caller memory, heap struct config, JSON config)
# at chunk sizes 1,2,3,5,7,64,whole; the provider vectors of every provider the library
# decodes through the decoder API (JSON config, heap struct config, caller memory), at the
# same sizes; misuse; the malloc-free proof;
# everything again under valgrind (zero errors, zero leaks; every vector in caller memory, a
# spread sample in the other modes); the NANO-style example built against the static
# library, run and checked; the PHP class on the same vectors and its misuse tests, and both
# again under valgrind (memory errors); TokenSieve\Decoder on the provider vectors (also
# under valgrind); the PHPUnit suite, opcache preloading, the PHP examples and a composer
# install from a path repository into a scratch project (tests/composer-proof.sh).
#
#   bash ffi-c/test.sh --quick   the same without valgrind (test.sh's quick check)
set -euo pipefail
quick=0
[ "${1:-}" = "--quick" ] && quick=1
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
cd "$root"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
lib="$CARGO_TARGET_DIR/debug"
out="$CARGO_TARGET_DIR/ffi-c-tests"
mkdir -p "$out"
passed=0
failed=0
step() { printf '\n--> %s\n' "$*"; }
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAILED: $*"; }
run() { if "$@"; then ok; else bad "$*"; fi; }

step "tools"
need=()
command -v gcc >/dev/null || need+=(gcc)
command -v g++ >/dev/null || need+=(g++)
command -v valgrind >/dev/null || need+=(valgrind)
command -v php >/dev/null || need+=(php-cli)
command -v phpunit >/dev/null || need+=(phpunit)
command -v composer >/dev/null || need+=(composer)
command -v pkg-config >/dev/null || need+=(pkg-config)
command -v cmake >/dev/null || need+=(cmake)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing ${need[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
php -r 'exit(class_exists("FFI") ? 0 : 1);' || { echo "PHP has no FFI extension"; exit 1; }

step "build libtokensieve"
cargo build -q -p tokensieve-ffi
ls -l "$lib/libtokensieve.so" "$lib/libtokensieve.a"

step "headers fresh"
run bash "$here/gen-headers.sh" --check

step "compile the C tests (C99 and C++)"
CFLAGS=(-std=c99 -Wall -Wextra -pedantic -Werror -g -I"$root/include")
LINK=(-L"$lib" -ltokensieve -Wl,-rpath,"$lib")
for t in conformance decode misuse nomalloc format; do
  gcc "${CFLAGS[@]}" "$here/tests/$t.c" -o "$out/$t" "${LINK[@]}"
done
# The example links the static library (what an embedded host does).
gcc "${CFLAGS[@]}" "$here/examples/nano_stream.c" -o "$out/nano_stream" "$lib/libtokensieve.a" -lpthread -ldl -lm
# Once as C++ (nomalloc redefines the allocator, which C++ declares noexcept: C only).
for t in tests/conformance.c tests/decode.c tests/misuse.c tests/format.c examples/nano_stream.c; do
  g++ -x c++ -std=c++11 -Wall -Wextra -pedantic -Werror -I"$root/include" "$here/$t" \
      -o "$out/cxx_$(basename "$t" .c)" "${LINK[@]}"
done
"$out/cxx_misuse" >/dev/null && ok || bad "misuse built as C++"
"$out/cxx_format" >/dev/null && ok || bad "format built as C++"
ok

check_py="$root/conformance/check.py"
[ -f "$check_py" ] || check_py="$root/../shared/conformance/check.py"
case_dirs=()
# Every dialect that has vectors (a new dialect's come along without editing this list).
for d in $(ls "$root/conformance/cases"); do
  if "$out/conformance" --supported "$d"; then
    for base in "$root/conformance/cases" "$root/../shared/conformance/cases"; do
      [ -d "$base/$d" ] && case_dirs+=(--cases "$base/$d")
    done
  else
    echo "(dialect $d not supported by this build: its vectors are skipped)"
  fi
done

# Every provider with vectors, when the library decodes it (tokensieve_provider_supported).
provider_dirs=()
for p in openai-chat openai-responses anthropic gemini bedrock ollama; do
  [ -d "$root/conformance/providers/$p" ] || continue
  if "$out/decode" --supported "$p"; then
    provider_dirs+=(--cases "$root/conformance/providers/$p")
  else
    echo "(provider $p not decoded by this build: its vectors are skipped)"
  fi
done

step "misuse, the writers (format), malloc-free path"
run "$out/misuse"
run "$out/format"
run "$out/nomalloc"

step "conformance vectors through the C API"
for mode in caller heap json; do
  echo "-- mode $mode"
  run python3 "$check_py" --cmd "$out/conformance --mode $mode" "${case_dirs[@]}" -q --jobs 2
done

step "provider vectors through the decoder API"
if [ ${#provider_dirs[@]} -gt 0 ]; then
  for mode in json heap caller; do
    echo "-- mode $mode"
    run python3 "$check_py" --cmd "$out/decode --mode $mode" "${provider_dirs[@]}" -q --jobs 2
  done
fi

if [ "$quick" = 0 ]; then
step "valgrind (zero errors, zero leaks)"
VG=(valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=all --errors-for-leak-kinds=all)
run "${VG[@]}" "$out/misuse"
run "${VG[@]}" "$out/format"
TOKENSIEVE_VALGRIND=1 run "${VG[@]}" "$out/nomalloc"
run "${VG[@]}" "$out/nano_stream" 7 >/dev/null
# One process per vector covers all chunk sizes (--also-sizes). Every vector in caller memory
# (the mode that hands the library the most pointers); the other modes share that code past
# the configuration, so they run on a spread sample (every 3rd vector of each directory):
# valgrind costs about a second per process and CI has 90 minutes on 2 cores.
echo "-- vectors under valgrind, mode caller, chunk sizes 1,2,3,5,7,64,whole in one process"
run python3 "$check_py" --cmd "${VG[*]} $out/conformance --mode caller --also-sizes" "${case_dirs[@]}" \
    --sizes 0 --timeout 300 -q --jobs 2
echo "-- vectors under valgrind, mode heap, every 3rd vector, all chunk sizes in one process"
run python3 "$check_py" --cmd "${VG[*]} $out/conformance --mode heap --also-sizes" "${case_dirs[@]}" \
    --sizes 0 --timeout 300 -q --jobs 2 --sample 3
if [ ${#provider_dirs[@]} -gt 0 ]; then
  echo "-- provider vectors under valgrind, decoder mode caller, chunk sizes 1,2,3,5,7,64,whole in one process"
  run python3 "$check_py" --cmd "${VG[*]} $out/decode --mode caller --also-sizes" "${provider_dirs[@]}" \
      --sizes 0 --timeout 300 -q --jobs 2
  echo "-- provider vectors under valgrind, decoder mode json, every 3rd vector"
  run python3 "$check_py" --cmd "${VG[*]} $out/decode --mode json --also-sizes" "${provider_dirs[@]}" \
      --sizes 0 --timeout 300 -q --jobs 2 --sample 3
fi
echo "-- vectors under valgrind, JSON config, whole input, every 3rd vector"
run python3 "$check_py" --cmd "${VG[*]} $out/conformance --mode json" "${case_dirs[@]}" \
    --sizes 0 --timeout 300 -q --jobs 2 --sample 3

fi

step "nano_stream example"
"$out/nano_stream" 1 | head -5
# The documented shared-library build (ffi-c/examples/nano_stream.c's header), run from the
# repository root with the build directory in place of target/release: it must run without
# LD_LIBRARY_PATH (the rpath), which exited 127 before.
(cd "$root" && cc -std=c99 -I include ffi-c/examples/nano_stream.c -o "$out/nano_stream_so" \
   -L "$lib" -ltokensieve -Wl,-rpath,"$lib") && ok || bad "nano_stream documented build"
(unset LD_LIBRARY_PATH; "$out/nano_stream_so" 3 >/dev/null) && ok || bad "nano_stream (shared, rpath) runs"
run python3 "$here/examples/check_nano.py" "$out/nano_stream_so" 10
run python3 "$here/examples/check_nano.py" "$out/nano_stream" 40

step "install.sh --prefix: pkg-config and CMake find the installed library"
prefix="$out/prefix"
rm -rf "$prefix" "$out/cmake-use"
run bash "$here/install.sh" --prefix "$prefix" --from "$lib"
pc=(env PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config)
echo "pkg-config --cflags --libs tokensieve: $("${pc[@]}" --cflags --libs tokensieve)"
# shellcheck disable=SC2046 # word splitting of pkg-config's flags is intended
gcc -std=c99 -Wall -Wextra -pedantic -Werror "$here/tests/install/use.c" -o "$out/use_pc" \
    $("${pc[@]}" --cflags --libs tokensieve) -Wl,-rpath,"$("${pc[@]}" --variable=libdir tokensieve)" \
  && [ "$(env -u LD_LIBRARY_PATH "$out/use_pc")" = "Hi there" ] && ok || bad "a program built with pkg-config"
if command -v cmake >/dev/null; then
  cmake -S "$here/tests/install" -B "$out/cmake-use" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null \
    && cmake --build "$out/cmake-use" >/dev/null \
    && [ "$("$out/cmake-use/use_shared")" = "Hi there" ] && [ "$("$out/cmake-use/use_static")" = "Hi there" ] \
    && ok || bad "find_package(tokensieve): tokensieve::tokensieve and tokensieve::tokensieve_static"
else
  echo "(cmake unavailable: find_package(tokensieve) not tried)"
fi
# The PHP class over the installed library.
(cd "$out" && env -u TOKENSIEVE_HEADER TOKENSIEVE_LIB="$prefix/lib/libtokensieve.so" TS_AUTOLOAD="$here/php/autoload.php" php -r \
  'require getenv("TS_AUTOLOAD"); echo count(TokenSieve\TokenSieve::parse(["dialect" => "hermes"], "Hi")), "\n";' ) \
  | grep -qx 3 && ok || bad "PHP with the installed library"

step "PHP binding"
export TOKENSIEVE_LIB="$lib/libtokensieve.so"
run php "$here/php/tests/misuse.php"
run python3 "$check_py" --cmd "php $here/php/tests/parse.php" "${case_dirs[@]}" -q --jobs 2
echo "-- through the generator"
run python3 "$check_py" --cmd "php $here/php/tests/parse.php --generator" "${case_dirs[@]}" --sizes 1,7,0 -q --jobs 2
if [ ${#provider_dirs[@]} -gt 0 ]; then
  echo "-- TokenSieve\\Decoder on the provider vectors (feed, generator over reads, PSR-7-shaped body)"
  run python3 "$check_py" --cmd "php $here/php/tests/decode.php" "${provider_dirs[@]}" -q --jobs 2
  run python3 "$check_py" --cmd "php $here/php/tests/decode.php --generator" "${provider_dirs[@]}" \
      --sizes 1,7,0 -q --jobs 2
  run python3 "$check_py" --cmd "php $here/php/tests/decode.php --psr7" "${provider_dirs[@]}" \
      --sizes 1,7,0 -q --jobs 2
fi
echo "-- PHPUnit (TokenSieve, Decoder over PSR-7 bodies, where the library is found, ffi.preload)"
run phpunit -c "$here/php/phpunit.xml.dist"
echo "-- opcache.preload of preload.php with FFI::load (a master that is not root)"
preload_check='$e = TokenSieve\TokenSieve::parse(["dialect" => "hermes"], "Hi"); echo TokenSieve\Library::loadedFrom();'
preload_ini=(-d opcache.enable_cli=1 -d opcache.preload="$here/php/preload.php" -d ffi.enable=preload)
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && setpriv --reuid=nobody --regid=nogroup --clear-groups test -r "$here/php/preload.php"; then
  got="$(setpriv --reuid=nobody --regid=nogroup --clear-groups php "${preload_ini[@]}" -r "$preload_check")" || true
elif [ "$(id -u)" != 0 ]; then
  got="$(php "${preload_ini[@]}" -r "$preload_check")" || true
else
  got="FFI scope tokensieve"; echo "(no unprivileged user to preload as: skipped)"
fi
[ "$got" = "FFI scope tokensieve" ] && ok || bad "opcache.preload: got '$got'"
echo "-- the examples"
# (Whole outputs, then matched: `| grep -q` would close the pipe early and, with pipefail,
# fail the example on a write to a closed pipe.)
got="$(php "$here/php/examples/parse.php" hermes "$root/examples/tools.json" < "$root/examples/hermes.txt")" || true
case "$got" in *'→ get_weather({"city":"Paris","unit":"celsius"})'*) ok ;; *) bad "examples/parse.php: $got" ;; esac
got="$(php "$here/php/examples/decode_psr7.php" openai-chat "$root/conformance/providers/openai-chat/004-one-tool-call.sse")" || true
case "$got" in *'[finish: tool_calls'*) ok ;; *) bad "examples/decode_psr7.php: $got" ;; esac
echo "-- composer install from a path repository into a scratch project, used from outside the checkout"
run bash "$here/php/tests/composer-proof.sh" "$lib/libtokensieve.so"

if [ "$quick" = 0 ]; then
# PHP under valgrind: memory errors only (PHP keeps blocks until exit, so no leak check);
# USE_ZEND_ALLOC=0 hands PHP's allocations to malloc, where valgrind sees them. This is what
# found the use-after-free of a cloned TokenSieve and the over-read of slice pointers.
VG_PHP=(env USE_ZEND_ALLOC=0 valgrind -q --error-exitcode=99 --leak-check=no)
# PHP under valgrind takes ~3 s a process: a spread sample (every 5th vector of each dialect,
# every 3rd provider vector); the PHP class runs every vector without valgrind above.
echo "-- PHP under valgrind: misuse (clone, destroy, bad configs) and every 5th project vector, whole"
run "${VG_PHP[@]}" php "$here/php/tests/misuse.php"
project_dirs=()
for ((k = 1; k < ${#case_dirs[@]}; k += 2)); do
  case "${case_dirs[k]}" in "$root/conformance/"*) project_dirs+=(--cases "${case_dirs[k]}") ;; esac
done
run python3 "$check_py" --cmd "${VG_PHP[*]} php $here/php/tests/parse.php" "${project_dirs[@]}" \
    --sizes 0 --timeout 300 -q --jobs 2 --sample 5
if [ ${#provider_dirs[@]} -gt 0 ]; then
  echo "-- PHP decoder under valgrind: every 3rd provider vector, whole"
  run python3 "$check_py" --cmd "${VG_PHP[*]} php $here/php/tests/decode.php" "${provider_dirs[@]}" \
      --sizes 0 --timeout 300 -q --jobs 2 --sample 3
fi
fi

echo
echo "ffi-c: $passed passed, $failed failed"
[ "$failed" = 0 ]
