#!/usr/bin/env bash
# Installs the C library under a prefix, for C/C++ builds (pkg-config, CMake) and PHP:
#   DIR/lib/libtokensieve.so, DIR/lib/libtokensieve.a
#   DIR/include/tokensieve.h, DIR/include/tokensieve_php.h
#   DIR/lib/pkgconfig/tokensieve.pc                        pkg-config --cflags --libs tokensieve
#   DIR/lib/cmake/tokensieve/tokensieveConfig.cmake        find_package(tokensieve) →
#   DIR/lib/cmake/tokensieve/tokensieveConfigVersion.cmake   tokensieve::tokensieve (shared),
#                                                            tokensieve::tokensieve_static
#
#   bash ffi-c/install.sh --prefix DIR            builds (cargo build --release) and installs
#   bash ffi-c/install.sh --prefix DIR --from D   installs the libraries already built in D
#                                                 (e.g. target/debug), without building
#   DESTDIR=/staging bash ffi-c/install.sh --prefix /usr/local   staged (packaging): files go to
#                                                 /staging/usr/local, paths inside say /usr/local
#   --no-strip                                    keep debug info (default: strip --strip-debug)
# The release profile strips the shared library (Cargo.toml); cargo does not strip a static
# one, whose std objects keep their debug info: this script does. The library has no SONAME, so a
# program links it as -ltokensieve and finds it at run time through the system path (ldconfig
# after installing to /usr/local), an rpath (-Wl,-rpath,DIR/lib) or LD_LIBRARY_PATH.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
prefix=""
from=""
strip_debug=1
usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; }
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix="${2:?--prefix needs a directory}"; shift 2 ;;
    --prefix=*) prefix="${1#--prefix=}"; shift ;;
    --from) from="${2:?--from needs a directory}"; shift 2 ;;
    --from=*) from="${1#--from=}"; shift ;;
    --no-strip) strip_debug=0; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "install.sh: unknown argument $1" >&2; usage >&2; exit 2 ;;
  esac
done
[ -n "$prefix" ] || { echo "install.sh: --prefix DIR is required" >&2; usage >&2; exit 2; }
# pkg-config and CMake files name the prefix: make it absolute (it need not exist yet).
case "$prefix" in /*) ;; *) prefix="$PWD/$prefix" ;; esac
prefix="${prefix%/}"
if [ -z "$from" ]; then
  (cd "$root" && cargo build --release -p tokensieve-ffi)
  from="${CARGO_TARGET_DIR:-$root/target}/release"
fi
for f in libtokensieve.so libtokensieve.a; do
  [ -f "$from/$f" ] || { echo "install.sh: $from/$f not found (build it: cargo build --release -p tokensieve-ffi)" >&2; exit 1; }
done
version="$(sed -n '/^\[workspace.package\]/,/^\[/ s/^version = "\(.*\)"/\1/p' "$root/Cargo.toml")"
[ -n "$version" ] || { echo "install.sh: no version in Cargo.toml" >&2; exit 1; }
pointer_bytes=$(( $(getconf LONG_BIT) / 8 ))
dest="${DESTDIR:-}$prefix"
install -d "$dest/lib/pkgconfig" "$dest/lib/cmake/tokensieve" "$dest/include"
install -m 0755 "$from/libtokensieve.so" "$dest/lib/"
install -m 0644 "$from/libtokensieve.a" "$dest/lib/"
if [ "$strip_debug" = 1 ] && command -v strip >/dev/null; then
  strip --strip-debug "$dest/lib/libtokensieve.so" "$dest/lib/libtokensieve.a"
fi
install -m 0644 "$root/include/tokensieve.h" "$root/include/tokensieve_php.h" "$dest/include/"
subst() { sed -e "s|@PREFIX@|$prefix|g" -e "s|@VERSION@|$version|g" -e "s|@SIZEOF_VOID_P@|$pointer_bytes|g" "$1" > "$2"; }
subst "$here/pkg/tokensieve.pc.in" "$dest/lib/pkgconfig/tokensieve.pc"
subst "$here/pkg/tokensieveConfig.cmake.in" "$dest/lib/cmake/tokensieve/tokensieveConfig.cmake"
subst "$here/pkg/tokensieveConfigVersion.cmake.in" "$dest/lib/cmake/tokensieve/tokensieveConfigVersion.cmake"
chmod 0644 "$dest/lib/pkgconfig/tokensieve.pc" "$dest/lib/cmake/tokensieve/"*.cmake
echo "installed tokensieve $version under $dest:"
(cd "$dest" && find lib/libtokensieve.so lib/libtokensieve.a include/tokensieve.h include/tokensieve_php.h \
   lib/pkgconfig/tokensieve.pc lib/cmake/tokensieve -type f | sort | sed 's/^/  /')
