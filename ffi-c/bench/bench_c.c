/* Per-event cost of the C API: the same synthetic transcript as examples/bench_rust.rs
 * (text, thinking, a tool region with typed parameters), fed in chunks of CHUNK bytes.
 *   bench_c [CHUNK] [REPEAT] [MODES]   (defaults 16, 4000: about 1 MB, and 0123)
 * MODES: digits of the modes to run: 0 heap, 1 caller memory, 2 heap + accumulate,
 * 3 heap drained with tokensieve_next_batch (every string copied out, as a binding does). */
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tokensieve.h"

static const char unit[] =
    "Sure, here is the plan for today.\n<thinking>Step one, then step two; check the weather.</thinking>\n"
    "Calling the tool now.<function_calls><invoke name=\"get_weather\"><parameter name=\"city\">Paris</parameter>"
    "<parameter name=\"days\">3</parameter></invoke></function_calls>\n";

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static tokensieve_record recs[512];
static uint8_t bytes[1 << 15];

/* Drains with tokensieve_next_batch; counts events and text bytes. */
static int drain_batch(tokensieve_parser *p, unsigned long *n, unsigned long *text) {
    tokensieve_batch b = { recs, 512, bytes, sizeof bytes, 0, 0 };
    int rc;
    size_t i;
    do {
        rc = tokensieve_next_batch(p, &b);
        for (i = 0; i < b.n_records; i++) *text += recs[i].text_len;
        *n += b.n_records;
    } while (rc == TOKENSIEVE_EVENT);
    return rc;
}

static double run_batch(tokensieve_parser *p, const char *input, size_t len, size_t chunk, unsigned long *events) {
    size_t off;
    double t0 = now();
    unsigned long n = 0, text = 0;
    tokensieve_reset(p);
    for (off = 0; off < len; off += chunk) {
        size_t k = len - off < chunk ? len - off : chunk;
        tokensieve_feed(p, input + off, k);
        drain_batch(p, &n, &text);
    }
    tokensieve_finish(p);
    drain_batch(p, &n, &text);
    *events = n + (text == 0);
    return now() - t0;
}

static double run(tokensieve_parser *p, const char *input, size_t len, size_t chunk, unsigned long *events) {
    tokensieve_event ev;
    size_t off;
    double t0 = now();
    unsigned long n = 0, bytes = 0;
    tokensieve_reset(p);
    for (off = 0; off < len; off += chunk) {
        size_t k = len - off < chunk ? len - off : chunk;
        tokensieve_feed(p, input + off, k);
        while (tokensieve_next(p, &ev) == TOKENSIEVE_EVENT) { n++; bytes += ev.text.len; }
    }
    tokensieve_finish(p);
    while (tokensieve_next(p, &ev) == TOKENSIEVE_EVENT) n++;
    *events = n + (bytes == 0); /* keep `bytes` live */
    return now() - t0;
}

int main(int argc, char **argv) {
    size_t chunk = argc > 1 ? (size_t)strtoul(argv[1], NULL, 10) : 16;
    size_t repeat = argc > 2 ? (size_t)strtoul(argv[2], NULL, 10) : 4000;
    const char *modes = argc > 3 ? argv[3] : "0123";
    size_t ulen = sizeof unit - 1, len = ulen * repeat, i;
    char *input = (char *)malloc(len);
    tokensieve_tool tool;
    tokensieve_config c;
    int mode;
    static unsigned char mem[1 << 16];
    for (i = 0; i < repeat; i++) memcpy(input + i * ulen, unit, ulen);
    tool.name = "get_weather";
    tool.schema = "{\"properties\":{\"city\":{\"type\":\"string\"},\"days\":{\"type\":\"integer\"}}}";
    for (mode = 0; mode < 4; mode++) {
        tokensieve_parser *p;
        unsigned long events = 0;
        double best = 1e9;
        int round;
        uintptr_t a;
        if (!strchr(modes, '0' + mode)) continue;
        tokensieve_config_default(&c);
        c.dialect = TOKENSIEVE_DIALECT_ANTHROPIC_XML;
        c.tools = &tool;
        c.tools_len = 1;
        c.accumulate = mode == 2;
        a = (uintptr_t)tokensieve_state_align();
        p = mode == 1 ? tokensieve_init((void *)(((uintptr_t)mem + a - 1) & ~(a - 1)), tokensieve_state_size(&c), &c)
                      : tokensieve_new(&c);
        for (round = 0; round < 5; round++) {
            double t = mode == 3 ? run_batch(p, input, len, chunk, &events) : run(p, input, len, chunk, &events);
            if (t < best) best = t;
        }
        printf("C API  %-26s chunk %4lu: %8lu events, %6.1f ns/event, %6.1f MB/s\n",
               mode == 0 ? "heap" : mode == 1 ? "caller memory" : mode == 2 ? "heap + accumulate" : "heap, next_batch",
               (unsigned long)chunk, events, best * 1e9 / (double)events, (double)len / best / 1e6);
        if (mode != 1) tokensieve_free(p);
    }
    free(input);
    return 0;
}
