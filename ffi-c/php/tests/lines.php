<?php
/**
 * The JSON lines the check.py drivers (parse.php, decode.php) print: the PHP arrays as they
 * are, except that 'input' is printed as its original text (numbers as written), error 'raw'
 * bytes as text with invalid UTF-8 replaced the way Rust's from_utf8_lossy does, and 'usage'
 * as an object even when empty.
 */

declare(strict_types=1);

/** Invalid UTF-8 → U+FFFD per maximal invalid subpart (Unicode's recommendation, as Rust). */
function lossy(string $s): string
{
    if (preg_match('//u', $s)) {
        return $s;
    }
    $out = '';
    $n = strlen($s);
    for ($i = 0; $i < $n;) {
        $b = ord($s[$i]);
        if ($b < 0x80) {
            $out .= $s[$i++];
            continue;
        }
        [$need, $lo, $hi] = match (true) {
            $b >= 0xC2 && $b <= 0xDF => [1, 0x80, 0xBF],
            $b === 0xE0 => [2, 0xA0, 0xBF],
            ($b >= 0xE1 && $b <= 0xEC) || $b === 0xEE || $b === 0xEF => [2, 0x80, 0xBF],
            $b === 0xED => [2, 0x80, 0x9F],
            $b === 0xF0 => [3, 0x90, 0xBF],
            $b >= 0xF1 && $b <= 0xF3 => [3, 0x80, 0xBF],
            $b === 0xF4 => [3, 0x80, 0x8F],
            default => [0, 0, 0],
        };
        $k = 1;
        for (; $k <= $need; $k++) {
            if ($i + $k >= $n) {
                break;
            }
            $c = ord($s[$i + $k]);
            if ($k === 1 ? ($c < $lo || $c > $hi) : ($c < 0x80 || $c > 0xBF)) {
                break;
            }
        }
        if ($need > 0 && $k > $need) {
            $out .= substr($s, $i, $need + 1);
            $i += $need + 1;
        } else {
            $out .= "\u{FFFD}";
            $i += $k;
        }
    }
    return $out;
}

function line(array $e): string
{
    $input = null;
    if (isset($e['input_json'])) {
        $input = $e['input_json'];
        unset($e['input'], $e['input_json']);
    }
    if (isset($e['usage'])) {
        $e['usage'] = (object) $e['usage'];
    }
    if (isset($e['error'])) {
        $e['error'] = ['reason' => $e['error']['reason'], 'raw' => lossy($e['error']['raw'])];
    }
    $json = json_encode($e, JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE);
    if ($input !== null) {
        $json = substr($json, 0, -1) . ',"input":' . $input . '}';
    }
    return $json . "\n";
}
