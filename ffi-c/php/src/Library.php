<?php

declare(strict_types=1);

namespace TokenSieve;

/**
 * Finds and loads libtokensieve (once per process) with its PHP header.
 *
 * The library, first found wins:
 *   1. an explicit path: Library::configure(library: …), Library::load($library), or the
 *      `library:` argument of new TokenSieve(…) / new Decoder(…) (the first one loads);
 *   2. the environment variable TOKENSIEVE_LIB;
 *   3. next to the package: <package>/lib/libtokensieve.so; in a source checkout
 *      <checkout>/target/release/ and target/debug/;
 *   4. the system's library search path (dlopen of the bare name: ld.so.cache,
 *      LD_LIBRARY_PATH), e.g. after `ffi-c/install.sh --prefix /usr/local` and ldconfig.
 * The header (include/tokensieve_php.h), first found wins:
 *   1. an explicit path (`header:`, as above); 2. TOKENSIEVE_HEADER;
 *   3. the package's own include/tokensieve_php.h (it matches the package's ABI version);
 *   4. next to the library: <libdir>/../include/tokensieve_php.h (an install.sh prefix).
 * An explicit path or a variable that names a missing file is an error (no silent
 * fallback); when nothing is found the LibraryException lists every place tried.
 *
 * Under php-fpm / Apache (ffi.enable=preload), preload.php calls Library::preload() from
 * opcache.preload: the definitions live in the FFI scope "tokensieve", which load() uses
 * before anything else.
 */
final class Library
{
    /** The C ABI version this package speaks (tokensieve_abi_version()). */
    public const ABI_VERSION = 5;
    /** The FFI scope preload() declares (FFI_SCOPE). */
    public const SCOPE = 'tokensieve';
    public const LIB_ENV = 'TOKENSIEVE_LIB';
    public const HEADER_ENV = 'TOKENSIEVE_HEADER';

    private static ?\FFI $ffi = null;
    private static ?string $loadedLibrary = null;
    private static ?string $loadedHeader = null;
    private static ?string $configuredLibrary = null;
    private static ?string $configuredHeader = null;

    /**
     * Chooses the library and/or header before the first load (the same as the `library:` /
     * `header:` arguments). After the library is loaded, a different path is an error.
     */
    public static function configure(?string $library = null, ?string $header = null): void
    {
        if (self::$ffi !== null) {
            self::checkSame($library, $header);
            return;
        }
        self::$configuredLibrary = $library ?? self::$configuredLibrary;
        self::$configuredHeader = $header ?? self::$configuredHeader;
    }

    /**
     * The loaded library (loading it on the first call). $library / $header: explicit paths,
     * which take precedence over everything else (see the class comment).
     * @throws LibraryException when not found, not loadable or not matching
     */
    public static function load(?string $library = null, ?string $header = null): \FFI
    {
        if (self::$ffi !== null) {
            self::checkSame($library, $header);
            return self::$ffi;
        }
        if (!\extension_loaded('ffi')) {
            throw new LibraryException('the PHP FFI extension is not loaded (ext-ffi; ffi.enable)');
        }
        $library ??= self::$configuredLibrary;
        $header ??= self::$configuredHeader;
        // Preloaded (opcache.preload + preload.php): the scope has the definitions and the
        // library, and FFI::cdef may be refused (ffi.enable=preload outside the CLI).
        if ($library === null && $header === null) {
            try {
                $ffi = \FFI::scope(self::SCOPE);
                self::verify($ffi, 'the preloaded FFI scope "' . self::SCOPE . '"', '(preload)');
                self::$loadedLibrary = 'FFI scope ' . self::SCOPE;
                self::$loadedHeader = 'FFI scope ' . self::SCOPE;
                return self::$ffi = $ffi;
            } catch (\FFI\Exception) {
                // Not preloaded: load it here.
            }
        }
        [$lib, $hdr, $tried] = self::locate($library, $header);
        $code = (string) file_get_contents($hdr);
        $found = false;
        $errors = [];
        foreach ($lib as $candidate) {
            try {
                $ffi = \FFI::cdef($code, $candidate);
                $found = true;
                break;
            } catch (\FFI\Exception $e) {
                $errors[] = "$candidate: " . $e->getMessage();
            }
        }
        if (!$found) {
            throw new LibraryException(
                "libtokensieve could not be loaded. Tried, in order:\n  - " . implode("\n  - ", $tried)
                . ($errors === [] ? '' : "\nload errors:\n  - " . implode("\n  - ", $errors))
                . "\nBuild it (cargo build --release -p tokensieve-ffi, or ffi-c/install.sh --prefix DIR) and set "
                . self::LIB_ENV . ', or pass library: to the constructor / Library::configure().'
            );
        }
        self::verify($ffi, $candidate, $hdr);
        self::$loadedLibrary = $candidate;
        self::$loadedHeader = $hdr;
        return self::$ffi = $ffi;
    }

    /**
     * For opcache.preload (preload.php): loads the library into the FFI scope "tokensieve"
     * with FFI::load, so that requests find it with FFI::scope under ffi.enable=preload.
     * When the scope exists already (ffi.preload named the header of ffiHeader()), only
     * checks it. Returns the library path used (or "FFI scope tokensieve").
     * @throws LibraryException
     */
    public static function preload(?string $library = null, ?string $header = null): string
    {
        try {
            self::verify(\FFI::scope(self::SCOPE), 'the FFI scope "' . self::SCOPE . '"', '(ffi.preload)');
            return 'FFI scope ' . self::SCOPE;
        } catch (\FFI\Exception) {
            // Not declared by ffi.preload: load it here.
        }
        [$lib, $hdr, $tried] = self::locate($library ?? self::$configuredLibrary, $header ?? self::$configuredHeader);
        $lastError = '';
        foreach ($lib as $candidate) {
            $tmp = tempnam(sys_get_temp_dir(), 'tokensieve-ffi-');
            if ($tmp === false) {
                throw new LibraryException('preload: cannot create a temporary header file');
            }
            file_put_contents($tmp, self::ffiHeader($candidate, $hdr));
            try {
                $ffi = \FFI::load($tmp);
            } catch (\FFI\Exception $e) {
                // FFI::load refuses to run under opcache.preload_user (a master running as root).
                throw new LibraryException('preload: ' . $e->getMessage() . "\nWhen the server starts as root "
                    . '(opcache.preload_user set), declare the library with ffi.preload instead: '
                    . '`php preload.php --ffi-header FILE` writes FILE; set ffi.preload=FILE (see README.md).', 0, $e);
            } finally {
                unlink($tmp);
            }
            if ($ffi !== null) {
                self::verify($ffi, $candidate, $hdr);
                return $candidate;
            }
            $lastError = "$candidate: FFI::load failed";
        }
        throw new LibraryException("preload: libtokensieve could not be loaded. Tried, in order:\n  - "
            . implode("\n  - ", $tried) . ($lastError === '' ? '' : "\n$lastError"));
    }

    /**
     * The header for FFI::load / ffi.preload: the PHP header with FFI_SCOPE "tokensieve" and
     * FFI_LIB (the library as located, or $library) in front.
     * @throws LibraryException
     */
    public static function ffiHeader(?string $library = null, ?string $header = null): string
    {
        if ($library === null || $header === null) {
            [$libs, $hdr] = self::locate($library, $header);
            $library ??= $libs[0];
            $header ??= $hdr;
        }
        if (str_contains($library, '/')) {
            $library = realpath($library) ?: $library;
        }
        return '#define FFI_SCOPE "' . self::SCOPE . "\"\n#define FFI_LIB \""
            . addcslashes($library, "\"\\") . "\"\n" . file_get_contents($header);
    }

    /** Where the loaded library came from (a path, or "FFI scope tokensieve"); null before the load. */
    public static function loadedFrom(): ?string
    {
        return self::$loadedLibrary;
    }

    /** The header the library was declared with; null before the load. */
    public static function headerPath(): ?string
    {
        return self::$loadedHeader;
    }

    /**
     * The library candidates (in order), the header, and every place tried (for messages).
     * @return array{0: list<string>, 1: string, 2: list<string>}
     * @internal
     */
    public static function locate(?string $library, ?string $header): array
    {
        $tried = [];
        $name = self::fileName();
        $package = \dirname(__DIR__);
        $checkout = \dirname($package, 2);
        $libs = [];
        $env = getenv(self::LIB_ENV);
        if ($library !== null) {
            $tried[] = "library: $library (explicit)";
            if (!is_file($library)) {
                throw new LibraryException("libtokensieve: the library given ($library) does not exist");
            }
            $libs[] = $library;
        } elseif (\is_string($env) && $env !== '') {
            $tried[] = self::LIB_ENV . "=$env";
            if (!is_file($env)) {
                throw new LibraryException(self::LIB_ENV . "=$env: no such file");
            }
            $libs[] = $env;
        } else {
            $tried[] = self::LIB_ENV . ' (not set)';
            $places = ["$package/lib/$name"];
            if (is_file("$checkout/ffi-c/Cargo.toml")) {
                $places[] = "$checkout/target/release/$name";
                $places[] = "$checkout/target/debug/$name";
            }
            foreach ($places as $p) {
                $tried[] = $p;
                if (is_file($p)) {
                    $libs[] = $p;
                    break;
                }
            }
            if ($libs === []) {
                $tried[] = "$name through the system's library search path (dlopen)";
                $libs[] = $name;
            }
        }

        $henv = getenv(self::HEADER_ENV);
        $hdr = null;
        if ($header !== null) {
            $tried[] = "header: $header (explicit)";
            if (!is_file($header)) {
                throw new LibraryException("libtokensieve: the header given ($header) does not exist");
            }
            $hdr = $header;
        } elseif (\is_string($henv) && $henv !== '') {
            $tried[] = self::HEADER_ENV . "=$henv";
            if (!is_file($henv)) {
                throw new LibraryException(self::HEADER_ENV . "=$henv: no such file");
            }
            $hdr = $henv;
        } else {
            $tried[] = self::HEADER_ENV . ' (not set)';
            $places = ["$package/include/tokensieve_php.h"];
            if (str_contains($libs[0], '/')) {
                $places[] = \dirname($libs[0], 2) . '/include/tokensieve_php.h';
            }
            $places[] = "$checkout/include/tokensieve_php.h";
            foreach ($places as $p) {
                $tried[] = $p;
                if (is_file($p)) {
                    $hdr = $p;
                    break;
                }
            }
            if ($hdr === null) {
                throw new LibraryException("tokensieve_php.h not found. Tried, in order:\n  - "
                    . implode("\n  - ", $tried) . "\nSet " . self::HEADER_ENV . ' or pass header:.');
            }
        }
        return [$libs, $hdr, $tried];
    }

    /** libtokensieve.so, .dylib or tokensieve.dll. */
    private static function fileName(): string
    {
        return match (PHP_OS_FAMILY) {
            'Darwin' => 'libtokensieve.dylib',
            'Windows' => 'tokensieve.dll',
            default => 'libtokensieve.so',
        };
    }

    private static function verify(\FFI $ffi, string $library, string $header): void
    {
        $abi = $ffi->tokensieve_abi_version();
        if ($abi !== self::ABI_VERSION) {
            throw new LibraryException("$library speaks C ABI version $abi; this package needs "
                . self::ABI_VERSION . ' (use the library and the package of the same release)');
        }
        if ($ffi->tokensieve_event_size() !== \FFI::sizeof($ffi->type('tokensieve_event'))) {
            throw new LibraryException("$library does not match $header (event size)");
        }
    }

    private static function checkSame(?string $library, ?string $header): void
    {
        if (self::$loadedLibrary === null || str_starts_with(self::$loadedLibrary, 'FFI scope')) {
            return; // preloaded: the scope wins (preload.php chose the library)
        }
        foreach ([[$library, self::$loadedLibrary, 'library'], [$header, self::$loadedHeader, 'header']] as [$want, $have, $what]) {
            if ($want !== null && realpath($want) !== realpath((string) $have)) {
                throw new LibraryException("libtokensieve is already loaded with $what $have; "
                    . "a process loads it once (asked for $want)");
            }
        }
    }
}
