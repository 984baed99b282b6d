<?php

declare(strict_types=1);

namespace TokenSieve\Tests;

use PHPUnit\Framework\TestCase;
use TokenSieve\Library;
use TokenSieve\LibraryException;

/**
 * Where the library and header are found, and the message when they are not. The library
 * loads once per process: each case runs in a PHP child process.
 */
final class LibraryTest extends TestCase
{
    private static string $lib;
    private static string $package;
    private static string $tmp;

    public static function setUpBeforeClass(): void
    {
        Library::load();
        $lib = Library::loadedFrom();
        if ($lib === null || !is_file($lib)) {
            self::markTestSkipped('libtokensieve loaded from ' . var_export($lib, true) . ', not a file');
        }
        self::$lib = (string) realpath($lib);
        self::$package = \dirname(__DIR__, 2);
        self::$tmp = sys_get_temp_dir() . '/tokensieve-phpunit-' . getmypid();
        @mkdir(self::$tmp, 0o777, true);
    }

    public static function tearDownAfterClass(): void
    {
        if (isset(self::$tmp) && is_dir(self::$tmp)) {
            exec('rm -rf ' . escapeshellarg(self::$tmp));
        }
    }

    /**
     * Runs $code (after the autoloader of $package) in a child PHP; the environment is this
     * one's without TOKENSIEVE_* plus $env.
     * @param array<string,string> $env
     * @param list<string> $ini
     * @return array{int, string}
     */
    private static function child(string $package, string $code, array $env = [], array $ini = []): array
    {
        $file = self::$tmp . '/child-' . bin2hex(random_bytes(4)) . '.php';
        file_put_contents($file, "<?php\nrequire " . var_export("$package/autoload.php", true) . ";\n$code");
        $base = getenv();
        unset($base['TOKENSIEVE_LIB'], $base['TOKENSIEVE_HEADER']);
        $cmd = [PHP_BINARY];
        foreach ($ini as $setting) {
            $cmd[] = '-d';
            $cmd[] = $setting;
        }
        $cmd[] = $file;
        $proc = proc_open($cmd, [1 => ['pipe', 'w'], 2 => ['redirect', 1]], $pipes, null, $env + $base);
        self::assertIsResource($proc);
        $out = (string) stream_get_contents($pipes[1]);
        fclose($pipes[1]);
        return [proc_close($proc), $out];
    }

    /** A copy of the package outside the checkout (src/, autoload.php; $withHeader: include/). */
    private static function copyPackage(string $name, bool $withHeader, bool $withLib = false): string
    {
        $dir = self::$tmp . "/$name";
        @mkdir("$dir/src", 0o777, true);
        copy(self::$package . '/autoload.php', "$dir/autoload.php");
        foreach (glob(self::$package . '/src/*.php') ?: [] as $f) {
            copy($f, "$dir/src/" . basename($f));
        }
        if ($withHeader) {
            @mkdir("$dir/include");
            copy(self::$package . '/include/tokensieve_php.h', "$dir/include/tokensieve_php.h");
        }
        if ($withLib) {
            @mkdir("$dir/lib");
            symlink(self::$lib, "$dir/lib/libtokensieve.so");
        }
        return $dir;
    }

    private const USE = "echo count(TokenSieve\\TokenSieve::parse(['dialect' => 'hermes'], 'Hi')), ' ', "
        . "TokenSieve\\Library::loadedFrom(), \"\\n\";";

    public function testNothingFoundListsEveryPlace(): void
    {
        $dir = self::copyPackage('bare', withHeader: true);
        [$rc, $out] = self::child($dir, "try { TokenSieve\\Library::load(); } catch (TokenSieve\\LibraryException \$e) { echo \$e->getMessage(); exit(3); }",
            ['LD_LIBRARY_PATH' => self::$tmp]);
        self::assertSame(3, $rc, $out);
        self::assertStringContainsString('TOKENSIEVE_LIB (not set)', $out);
        self::assertStringContainsString("$dir/lib/libtokensieve.so", $out);
        self::assertStringContainsString("system's library search path", $out);
        self::assertStringContainsString('Tried, in order', $out);

        $dir = self::copyPackage('noheader', withHeader: false);
        [$rc, $out] = self::child($dir, "try { TokenSieve\\Library::load(); } catch (TokenSieve\\LibraryException \$e) { echo \$e->getMessage(); exit(3); }",
            ['TOKENSIEVE_LIB' => self::$lib]);
        self::assertSame(3, $rc, $out);
        self::assertStringContainsString('tokensieve_php.h not found', $out);
        self::assertStringContainsString('TOKENSIEVE_HEADER (not set)', $out);
        self::assertStringContainsString("$dir/include/tokensieve_php.h", $out);
        self::assertStringContainsString(\dirname(self::$lib, 2) . '/include/tokensieve_php.h', $out);
    }

    public function testNextToThePackage(): void
    {
        $dir = self::copyPackage('bundled', withHeader: true, withLib: true);
        [$rc, $out] = self::child($dir, self::USE);
        self::assertSame(0, $rc, $out);
        self::assertSame("3 $dir/lib/libtokensieve.so\n", $out);
    }

    public function testEnvironment(): void
    {
        $dir = self::copyPackage('env', withHeader: false);
        [$rc, $out] = self::child($dir, self::USE, ['TOKENSIEVE_LIB' => self::$lib,
            'TOKENSIEVE_HEADER' => self::$package . '/include/tokensieve_php.h']);
        self::assertSame(0, $rc, $out);
        self::assertSame('3 ' . self::$lib . "\n", $out);
        [$rc, $out] = self::child($dir, self::USE, ['TOKENSIEVE_LIB' => '/nonexistent/libtokensieve.so']);
        self::assertSame(255, $rc, $out);
        self::assertStringContainsString('TOKENSIEVE_LIB=/nonexistent/libtokensieve.so: no such file', $out);
    }

    public function testExplicitPathsComeFirst(): void
    {
        $dir = self::copyPackage('explicit', withHeader: false, withLib: true);
        $code = "\$s = new TokenSieve\\TokenSieve(['dialect' => 'hermes'], library: " . var_export(self::$lib, true)
            . ', header: ' . var_export(self::$package . '/include/tokensieve_php.h', true) . ");\n"
            . "echo TokenSieve\\Library::loadedFrom(), \"\\n\";\n"
            . "try { TokenSieve\\Library::load('/elsewhere/libtokensieve.so'); } catch (TokenSieve\\LibraryException \$e) { echo 'once: ', \$e->getMessage(), \"\\n\"; }";
        [$rc, $out] = self::child($dir, $code, ['TOKENSIEVE_LIB' => '/nonexistent/libtokensieve.so']);
        self::assertSame(0, $rc, $out);
        self::assertStringStartsWith(self::$lib . "\n", $out);
        self::assertStringContainsString('once: libtokensieve is already loaded', $out);
        [$rc, $out] = self::child($dir, "TokenSieve\\Library::configure(library: '/nope/libtokensieve.so');\n" . self::USE);
        self::assertSame(255, $rc, $out);
        self::assertStringContainsString('/nope/libtokensieve.so', $out);
    }

    public function testExplicitMissingIsAnError(): void
    {
        $this->expectException(LibraryException::class);
        $this->expectExceptionMessage('/nonexistent/libtokensieve.so');
        Library::locate('/nonexistent/libtokensieve.so', null);
    }

    public function testPreloadThroughFfiPreload(): void
    {
        if (!\function_exists('opcache_get_status') && !\extension_loaded('Zend OPcache')) {
            self::markTestSkipped('no opcache');
        }
        $header = self::$tmp . '/preload.h';
        [$rc, $out] = self::child(self::$package, '', ['TOKENSIEVE_LIB' => self::$lib]);
        self::assertSame(0, $rc, $out);
        $cmd = [PHP_BINARY, self::$package . '/preload.php', '--ffi-header', $header];
        exec(implode(' ', array_map('escapeshellarg', $cmd)) . ' 2>&1', $lines, $rc);
        self::assertSame(0, $rc, implode("\n", $lines));
        self::assertStringStartsWith("#define FFI_SCOPE \"tokensieve\"\n#define FFI_LIB \"" . self::$lib . '"', (string) file_get_contents($header));
        $ini = ['opcache.enable_cli=1', 'opcache.preload=' . self::$package . '/preload.php', 'ffi.enable=preload',
            "ffi.preload=$header"];
        if (\function_exists('posix_geteuid') ? posix_geteuid() === 0 : getenv('USER') === 'root') {
            $ini[] = 'opcache.preload_user=root';
        }
        [$rc, $out] = self::child(self::$package, self::USE, ['TOKENSIEVE_LIB' => '/nonexistent/ignored.so'], $ini);
        self::assertSame(0, $rc, $out);
        self::assertSame("3 FFI scope tokensieve\n", $out);
    }
}
