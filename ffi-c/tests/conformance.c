/* Conformance driver for check.py (shared/conformance): the C API end to end.
 *
 *   conformance [--mode caller|heap|json] --config CONFIG.json [--prefill FILE] --chunk N
 *               --json INPUT_FILE
 *   conformance --supported DIALECT        exit 0 when this build parses DIALECT, else 1
 *
 * --also-sizes first parses the input at chunk sizes 1,2,3,5,7,64 without printing (one
 * valgrind process then covers every size).
 *
 * Prints one JSON event per line (uncoalesced), written from the tokensieve_event fields.
 * Modes: caller (default) reads the JSON config into a tokensieve_config (a small JSON
 * reader below) and runs in caller-provided memory; heap uses the same struct with
 * tokensieve_new; json passes the config text to tokensieve_new_json. All accumulate. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#include "jsonconfig.h"

/* --- the driver ------------------------------------------------------------------------ */

static void *aligned_block(size_t size, size_t align, void **base) {
    uintptr_t p;
    *base = malloc(size + align);
    if (!*base) return NULL;
    p = ((uintptr_t)*base + align - 1) & ~(uintptr_t)(align - 1);
    return (void *)p;
}

static int drain(tokensieve_parser *p, FILE *out) {
    tokensieve_event ev;
    int32_t rc;
    while ((rc = tokensieve_next(p, &ev)) == TOKENSIEVE_EVENT)
        if (out) print_event(out, &ev);
    if (rc < 0) {
        fprintf(stderr, "conformance: tokensieve_next: %d %s\n", (int)rc, tokensieve_last_error(p));
        return -1;
    }
    return rc;
}

/* One run over the input in chunks of `chunk` bytes; events go to `out` (NULL: dropped). */
static int parse(tokensieve_parser *p, const char *pre, size_t plen, const char *input, size_t len,
                 size_t chunk, FILE *out) {
    size_t off;
    int rc = 0;
    if (tokensieve_reset(p) != TOKENSIEVE_OK) return 4;
    if (pre && tokensieve_prefill(p, pre, plen) != TOKENSIEVE_OK) {
        fprintf(stderr, "conformance: prefill failed: %s\n", tokensieve_last_error(p));
        return 3;
    }
    for (off = 0; off < len && rc != TOKENSIEVE_DONE; off += chunk) {
        size_t n = len - off < chunk ? len - off : chunk;
        if (tokensieve_feed(p, input + off, n) != TOKENSIEVE_OK) {
            fprintf(stderr, "conformance: feed: %s\n", tokensieve_last_error(p));
            return 4;
        }
        rc = drain(p, out);
        if (rc < 0) return 4;
    }
    tokensieve_finish(p);
    return drain(p, out) == TOKENSIEVE_DONE ? 0 : 4;
}

int main(int argc, char **argv) {
    const char *config_path = NULL, *prefill_path = NULL, *input_path = NULL, *mode = "caller";
    size_t chunk = 0, input_len = 0, plen = 0;
    char *pre = NULL;
    int also = 0;
    char *config_text, *input;
    tokensieve_config c;
    tokensieve_parser *p = NULL;
    void *base = NULL;
    int i, status = 0;
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--supported") == 0 && i + 1 < argc) {
            uint32_t d;
            return (dialect_code(argv[i + 1], &d) && tokensieve_dialect_supported(d)) ? 0 : 1;
        } else if (strcmp(argv[i], "--config") == 0 && i + 1 < argc) config_path = argv[++i];
        else if (strcmp(argv[i], "--prefill") == 0 && i + 1 < argc) prefill_path = argv[++i];
        else if (strcmp(argv[i], "--chunk") == 0 && i + 1 < argc) chunk = (size_t)strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--mode") == 0 && i + 1 < argc) mode = argv[++i];
        else if (strcmp(argv[i], "--json") == 0) continue;
        else if (strcmp(argv[i], "--also-sizes") == 0) also = 1;
        else input_path = argv[i];
    }
    if (!config_path || !input_path) {
        fprintf(stderr, "usage: conformance [--mode caller|heap|json] --config F [--prefill F] --chunk N --json INPUT\n");
        return 2;
    }
    if (tokensieve_abi_version() != TOKENSIEVE_ABI_VERSION || tokensieve_event_size() != sizeof(tokensieve_event)) {
        fprintf(stderr, "conformance: ABI mismatch\n");
        return 2;
    }
    config_text = read_file(config_path, NULL);
    input = read_file(input_path, &input_len);
    if (!config_text || !input) {
        fprintf(stderr, "conformance: cannot read the config or the input\n");
        return 2;
    }
    if (chunk == 0) chunk = input_len ? input_len : 1;
    tokensieve_config_default(&c);
    c.accumulate = 1;
    if (strcmp(mode, "json") == 0) {
        p = tokensieve_new_json(config_text, 1);
    } else if (!read_config_with(config_text, &c, NULL, NULL)) {
        fprintf(stderr, "conformance: cannot read the config %s\n", config_text);
        return 2;
    } else if (needs_json_config) {
        /* Only the JSON config carries it (docs/design.md, thinking_tags spellings). */
        p = tokensieve_new_json(config_text, 1);
    } else if (strcmp(mode, "heap") == 0) {
        p = tokensieve_new(&c);
    } else {
        /* The vectors describe the heap parser: a call of a few hundred bytes (kimi-k3's
         * typed values: ~900) must fit the caller memory's raw budget as it does there. */
        if (c.buffer_size < 8192) c.buffer_size = 8192;
        size_t size = tokensieve_state_size(&c);
        void *mem = size ? aligned_block(size, tokensieve_state_align(), &base) : NULL;
        p = mem ? tokensieve_init(mem, size, &c) : NULL;
    }
    if (!p) {
        fprintf(stderr, "conformance: no parser: %s\n", tokensieve_last_error(NULL));
        return 3;
    }
    if (prefill_path) pre = read_file(prefill_path, &plen);
    /* --also-sizes: first run every other chunk size silently on the same parser (after a
     * reset), so that one process (one valgrind run) covers them all. */
    if (also) {
        static const size_t sizes[] = {1, 2, 3, 5, 7, 64};
        size_t k;
        for (k = 0; k < sizeof sizes / sizeof sizes[0] && status == 0; k++)
            status = parse(p, pre, plen, input, input_len, sizes[k], NULL);
    }
    if (status == 0) status = parse(p, pre, plen, input, input_len, chunk, stdout);
    free(pre);
    tokensieve_free(p);
    free(base);
    free(config_text);
    free(input);
    while (n_owned) free(owned[--n_owned]);
    return status;
}
