<?php

declare(strict_types=1);

namespace TokenSieve;

/**
 * The drive loop TokenSieve and Decoder share: one C handle, fed bytes, drained of events
 * through the pull API (feed, then next until nothing is pending; finish; reset), freed once.
 *
 * The using class names its handle kind (KIND, for messages) and its C functions (C: feed,
 * finish, reset, next, free, last_error), and calls adopt() from its constructor.
 *
 * @internal
 */
trait PullsEvents
{
    private \FFI $ffi;
    /** @var \FFI\CData tokensieve_parser* or tokensieve_decoder* */
    private \FFI\CData $handle;
    /** @var \FFI\CData tokensieve_event */
    private \FFI\CData $event;
    /** @var \FFI\CData tokensieve_event* */
    private \FFI\CData $eventPtr;
    private bool $freed = false;

    private function adopt(\FFI $ffi, \FFI\CData $handle): void
    {
        $this->ffi = $ffi;
        $this->handle = $handle;
        $this->event = $ffi->new('tokensieve_event');
        $this->eventPtr = \FFI::addr($this->event);
    }

    public function __destruct()
    {
        if (!$this->freed && isset($this->handle)) {
            $this->freed = true;
            $this->ffi->{self::C['free']}($this->handle);
        }
    }

    /**
     * Cloning is refused: the copy would share the C handle, and both objects would free it.
     * Make a new one from the same config instead.
     * @throws StateException always
     */
    public function __clone()
    {
        // The copy holds the original's pointer: make it inert before it is released.
        $this->freed = true;
        throw new StateException('a ' . self::KIND . ' cannot be cloned: create a new one from the same config');
    }

    /** The C handle, unless this object was destroyed (an explicit __destruct() call). */
    private function live(): \FFI\CData
    {
        if ($this->freed) {
            throw new StateException('this ' . self::KIND . ' was destroyed: create a new one');
        }
        return $this->handle;
    }

    /**
     * Takes the next piece of the stream (any chunking) and returns its events.
     * @return list<array<string,mixed>>
     * @throws Exception when the handle refuses it (after finish(), for one)
     */
    public function feed(string $bytes): array
    {
        // The library reads $bytes in place; it stays alive until drain() has consumed it.
        $this->check($this->ffi->{self::C['feed']}($this->live(), $bytes, \strlen($bytes)));
        return $this->drain();
    }

    /**
     * Ends the stream: returns the remaining events (held text, open blocks completing;
     * for a decoder, the finishes).
     * @return list<array<string,mixed>>
     */
    public function finish(): array
    {
        $this->check($this->ffi->{self::C['finish']}($this->live()));
        return $this->drain();
    }

    /** Back to the initial state for a new stream (same config). */
    public function reset(): void
    {
        $this->check($this->ffi->{self::C['reset']}($this->live()));
    }

    /**
     * Yields the events of a whole stream, then finishes. $reads: an iterable of strings, or
     * a stream object with eof() and read($n) (a PSR-7 StreamInterface, as a PSR-18 client's
     * $response->getBody()), read $readSize bytes at a time.
     * @param iterable<string>|object $reads
     * @return \Generator<int, array<string,mixed>>
     */
    public function stream(iterable|object $reads, int $readSize = 8192): \Generator
    {
        foreach (TokenSieve::reads($reads, $readSize) as $read) {
            yield from $this->feed($read);
        }
        yield from $this->finish();
    }

    private function check(int $rc): void
    {
        if ($rc < 0) {
            throw TokenSieve::error($this->ffi->{self::C['last_error']}($this->handle), $rc);
        }
    }

    /** @return list<array<string,mixed>> */
    private function drain(): array
    {
        $ffi = $this->ffi;
        $next = self::C['next'];
        $handle = $this->live();
        $ev = $this->event;
        $ptr = $this->eventPtr;
        $out = [];
        while (($rc = $ffi->{$next}($handle, $ptr)) === 0) {
            $out[] = TokenSieve::event($ev);
        }
        if ($rc < 0) {
            $this->check($rc);
        }
        return $out;
    }
}
