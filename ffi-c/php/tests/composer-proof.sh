#!/usr/bin/env bash
# The PHP package used from outside the checkout, the way a project gets it: `composer install`
# from a path repository (a copy, not a symlink; packagist disabled: works offline) into a
# scratch project in a temporary directory, then a script of that project parses and decodes
# with the library named by TOKENSIEVE_LIB and the header shipped in the package.
#   bash ffi-c/php/tests/composer-proof.sh /path/to/libtokensieve.so
set -euo pipefail
lib="$(realpath "$1")"
package="$(cd "$(dirname "$0")/.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
export COMPOSER_ALLOW_SUPERUSER=1 COMPOSER_NO_INTERACTION=1 COMPOSER_HOME="$tmp/home" COMPOSER_CACHE_DIR="$tmp/cache"
mkdir "$tmp/app"
cat > "$tmp/app/composer.json" <<JSON
{
    "name": "example/scratch",
    "require": {"tokensieve/tokensieve": "*@dev"},
    "repositories": [
        {"type": "path", "url": "$package", "options": {"symlink": false}},
        {"packagist.org": false}
    ]
}
JSON
cat > "$tmp/app/app.php" <<'PHP'
<?php
require __DIR__ . '/vendor/autoload.php';

use TokenSieve\Decoder;
use TokenSieve\Exception;
use TokenSieve\TokenSieve;

$file = (new ReflectionClass(TokenSieve::class))->getFileName();
if (!str_starts_with($file, __DIR__ . '/vendor/tokensieve/tokensieve/src/')) {
    fwrite(STDERR, "the class came from $file, not the installed package\n");
    exit(1);
}
$text = '';
foreach ((new TokenSieve(['dialect' => 'hermes']))->stream(['Hi <thi', 'nk>hmm</think>there']) as $e) {
    if ($e['event'] === 'chunk' && $e['visible']) {
        $text .= $e['text'];
    }
}
$body = "data: {\"choices\":[{\"delta\":{\"content\":\"streamed\"}}]}\n\ndata: [DONE]\n\n";
foreach (Decoder::decode(['provider' => 'openai-chat'], $body) as $e) {
    if ($e['event'] === 'chunk' && $e['visible']) {
        $text .= " $e[text]";
    }
}
try {
    new TokenSieve(['dialect' => 'klingon']);
} catch (Exception $e) {
    $text .= ' / ' . get_class($e);
}
echo $text, "\n";
PHP
(cd "$tmp/app" && composer install --no-interaction --no-progress --quiet)
[ -d "$tmp/app/vendor/tokensieve/tokensieve/src" ] && [ ! -L "$tmp/app/vendor/tokensieve/tokensieve" ]
out="$(cd "$tmp/app" && TOKENSIEVE_LIB="$lib" php app.php)"
expected="Hi there streamed / TokenSieve\\ConfigException"
if [ "$out" != "$expected" ]; then
  echo "composer proof: got '$out', expected '$expected'" >&2
  exit 1
fi
# Without the library anywhere, the error names every place tried.
err="$(cd "$tmp/app" && env -u TOKENSIEVE_LIB LD_LIBRARY_PATH= php app.php 2>&1 || true)"
case "$err" in
  *"TOKENSIEVE_LIB (not set)"*"vendor/tokensieve/tokensieve/lib/libtokensieve.so"*) ;;
  *) echo "composer proof: unexpected error without a library: $err" >&2; exit 1 ;;
esac
echo "composer proof: composer install from a path repository, used outside the checkout: $out"
