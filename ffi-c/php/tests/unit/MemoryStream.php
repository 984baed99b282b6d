<?php

declare(strict_types=1);

namespace TokenSieve\Tests;

/**
 * A PSR-7 StreamInterface's shape over a string, without psr/http-message (the package
 * duck-types eof()/read()): what a PSR-18 client's $response->getBody() looks like.
 */
final class MemoryStream
{
    private int $at = 0;
    public int $reads = 0;

    /** @param int $max at most this many bytes per read (a network read), 0: as asked */
    public function __construct(private string $bytes, private int $max = 0)
    {
    }

    public function eof(): bool
    {
        return $this->at >= \strlen($this->bytes);
    }

    public function read(int $length): string
    {
        $this->reads++;
        $n = $this->max > 0 ? min($length, $this->max) : $length;
        $r = (string) substr($this->bytes, $this->at, $n);
        $this->at += \strlen($r);
        return $r;
    }

    public function __toString(): string
    {
        return $this->bytes;
    }

    public function getSize(): ?int
    {
        return \strlen($this->bytes);
    }

    public function isReadable(): bool
    {
        return true;
    }

    public function close(): void
    {
    }
}
