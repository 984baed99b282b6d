<?php

declare(strict_types=1);

namespace TokenSieve;

/**
 * The drive loop TokenSieve and Decoder share: one C handle, fed bytes, drained of events
 * through the pull API (feed, then next until nothing is pending; finish; reset), freed once.
 *
 * The using class names its handle kind (KIND, for messages) and its C functions (C: feed,
 * finish, reset, next, next_batch, feed_batch, free, last_error), and calls adopt() from its constructor.
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
    /** @var \FFI\CData tokensieve_record[RECORDS]: the records of one *_next_batch call */
    private \FFI\CData $records;
    /** @var \FFI\CData uint8_t[]: their strings */
    private \FFI\CData $bytes;
    private int $bytesCap = 0;
    /** @var \FFI\CData tokensieve_batch: the two buffers, and what a call wrote */
    private \FFI\CData $batch;
    /** @var \FFI\CData tokensieve_batch* */
    private \FFI\CData $batchPtr;
    private bool $freed = false;

    /** Records per *_next_batch call. */
    private const RECORDS = 512;
    /** The byte area's first size; it grows when one event needs more. */
    private const BYTES = 32768;

    private function adopt(\FFI $ffi, \FFI\CData $handle): void
    {
        $this->ffi = $ffi;
        $this->handle = $handle;
        $this->event = $ffi->new('tokensieve_event');
        $this->eventPtr = \FFI::addr($this->event);
        $this->records = $ffi->new('tokensieve_record[' . self::RECORDS . ']');
        $this->bytesCap = self::BYTES;
        $this->bytes = $ffi->new('uint8_t[' . self::BYTES . ']');
        $this->batch = $ffi->new('tokensieve_batch');
        $this->batch->records = \FFI::addr($this->records[0]);
        $this->batch->records_cap = self::RECORDS;
        $this->batch->bytes = \FFI::addr($this->bytes[0]);
        $this->batch->bytes_cap = self::BYTES;
        $this->batchPtr = \FFI::addr($this->batch);
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
        // One call feeds and takes the first batch of events (a call costs more than an event).
        return $this->drain(
            $this->ffi->{self::C['feed_batch']}($this->live(), $bytes, \strlen($bytes), $this->batchPtr)
        );
    }

    /**
     * Ends the stream: returns the remaining events (held text, open blocks completing;
     * for a decoder, the finishes).
     * @return list<array<string,mixed>>
     */
    public function finish(): array
    {
        $this->check($this->ffi->{self::C['finish']}($this->live()));
        return $this->drain(null);
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

    /**
     * Every event the handle has now, as arrays: one *_next_batch call writes the records of
     * many events and their strings, decoded by TokenSieve::records() with one unpack — a
     * call and a field read per event through FFI cost several times the event itself.
     * $rc: the status of a *_feed_batch call whose batch is still to be read, or null.
     * @return list<array<string,mixed>>
     */
    private function drain(?int $rc): array
    {
        $ffi = $this->ffi;
        $next = self::C['next_batch'];
        $handle = $this->live();
        $batch = $this->batch;
        $ptr = $this->batchPtr;
        $out = [];
        while (true) {
            $rc ??= $ffi->{$next}($handle, $ptr);
            if ($rc === -7) {
                // TOKENSIEVE_E_BUFFER: one event needs more bytes; it waits for a larger area.
                $this->bytesCap = max($batch->n_bytes, 2 * $this->bytesCap);
                $this->bytes = $ffi->new('uint8_t[' . $this->bytesCap . ']');
                $batch->bytes = \FFI::addr($this->bytes[0]);
                $batch->bytes_cap = $this->bytesCap;
                $rc = null;
                continue;
            }
            if ($rc < 0) {
                $this->check($rc);
            }
            $records = $batch->n_records;
            if ($records > 0) {
                TokenSieve::records(
                    unpack('L*', \FFI::string($this->records, 24 * $records)),
                    \FFI::string($this->bytes, $batch->n_bytes),
                    $out
                );
            }
            if ($rc !== 0) {
                // TOKENSIEVE_NEED_MORE or TOKENSIEVE_DONE (0: a buffer filled, more to come).
                return $out;
            }
            $rc = null;
        }
    }
}
