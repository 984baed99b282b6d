#!/usr/bin/env bash
# Regenerates include/tokensieve.h and include/tokensieve_php.h (and its copy in the PHP
# package, ffi-c/php/include/tokensieve_php.h, which ships with the class) with cbindgen (installed with
# `cargo install cbindgen --locked` when missing) from ffi-c/src: lib.rs and the modules it
# declares, which cbindgen follows.
#   ffi-c/gen-headers.sh           rewrite the headers
#   ffi-c/gen-headers.sh --check   fail (exit 1) when a committed header is stale
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
CBINDGEN_VERSION="0.29.4"
if ! command -v cbindgen >/dev/null 2>&1 || [ "$(cbindgen --version | awk '{print $2}')" != "$CBINDGEN_VERSION" ]; then
  echo "installing cbindgen $CBINDGEN_VERSION" >&2
  cargo install cbindgen --locked --version "$CBINDGEN_VERSION" >&2
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$here" && cbindgen --quiet --config cbindgen.toml --crate tokensieve-ffi --output "$tmp/tokensieve.h" .)
(cd "$here" && cbindgen --quiet --config cbindgen-php.toml --crate tokensieve-ffi --output "$tmp/tokensieve_php.h.raw" .)
# PHP's FFI::cdef takes no preprocessor lines at all. And PHP FFI turns a `const char *` it
# reads from a struct into a PHP string with strlen, which reads past a slice (slices are not
# NUL-terminated): in the PHP header a slice's pointer is `const uint8_t *`, read with
# FFI::string($ptr, $len).
grep -v '^#' "$tmp/tokensieve_php.h.raw" | cat -s |
  sed '/^typedef struct tokensieve_str {/,/^} tokensieve_str;/ s/const char \*ptr;/const uint8_t *ptr;/' \
  > "$tmp/tokensieve_php.h"
if [ "${1:-}" = "--check" ]; then
  stale=0
  for h in tokensieve.h tokensieve_php.h; do
    if ! cmp -s "$tmp/$h" "$root/include/$h"; then
      echo "include/$h is stale: run ffi-c/gen-headers.sh" >&2
      diff -u "$root/include/$h" "$tmp/$h" | head -40 >&2 || true
      stale=1
    fi
  done
  if ! cmp -s "$tmp/tokensieve_php.h" "$here/php/include/tokensieve_php.h"; then
    echo "ffi-c/php/include/tokensieve_php.h is stale: run ffi-c/gen-headers.sh" >&2
    stale=1
  fi
  [ "$stale" = 0 ] && echo "headers are fresh"
  exit "$stale"
fi
mkdir -p "$root/include"
cp "$tmp/tokensieve.h" "$tmp/tokensieve_php.h" "$root/include/"
mkdir -p "$here/php/include"
cp "$tmp/tokensieve_php.h" "$here/php/include/"
echo "wrote include/tokensieve.h include/tokensieve_php.h ffi-c/php/include/tokensieve_php.h"
