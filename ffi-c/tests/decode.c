/* Provider-stream driver for check.py: the C decoder API end to end.
 *
 *   decode [--mode json|heap|caller] --config CONFIG.json --chunk N --json BODY_FILE
 *          [--also-sizes]
 *   decode --supported PROVIDER     exit 0 when this build decodes PROVIDER, else 1
 *
 * Modes (all accumulate): json (default) hands the vector's config object to
 * tokensieve_decoder_new_json as it is; heap reads it into a tokensieve_decoder_config
 * (jsonconfig.h) for tokensieve_decoder_new; caller uses the same struct with
 * tokensieve_decoder_init in caller memory. The body is fed N bytes at a time and every event printed as one JSON line (uncoalesced),
 * written from the tokensieve_event fields. --also-sizes first decodes the body at chunk
 * sizes 1,2,3,5,7,64 without printing, on the same decoder after a reset (one valgrind
 * process then covers every size). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "jsonconfig.h"

static const char *const providers[] = {"openai-chat", "openai-responses", "anthropic", "gemini",
                                        "bedrock", "ollama"};

static int provider_code(const char *name, uint32_t *out) {
    uint32_t k;
    for (k = 0; k < sizeof providers / sizeof providers[0]; k++)
        if (strcmp(providers[k], name) == 0) { *out = k; return 1; }
    return 0;
}

/* The decoder's keys, for read_config_with. */
static int decoder_key(jr *r, const char *key, void *ctx) {
    tokensieve_decoder_config *dc = (tokensieve_decoder_config *)ctx;
    if (strcmp(key, "provider") == 0) return provider_code(keep(jstring(r)), &dc->provider);
    if (strcmp(key, "text_dialect") == 0) return dialect_code(keep(jstring(r)), &dc->text.dialect);
    if (strcmp(key, "invoke_format") == 0) return provider_code(keep(jstring(r)), &dc->invoke_format);
    if (strcmp(key, "max_frame_bytes") == 0) {
        dc->max_frame_bytes = (uint32_t)strtoul(keep(jraw(r)), NULL, 10);
        return 1;
    }
    return 0;
}

static void *aligned_block(size_t size, size_t align, void **base) {
    uintptr_t p;
    *base = malloc(size + align);
    if (!*base) return NULL;
    p = ((uintptr_t)*base + align - 1) & ~(uintptr_t)(align - 1);
    return (void *)p;
}

static int drain(tokensieve_decoder *d, FILE *out) {
    tokensieve_event ev;
    int32_t rc;
    while ((rc = tokensieve_decoder_next(d, &ev)) == TOKENSIEVE_EVENT)
        if (out) print_event(out, &ev);
    if (rc < 0) {
        fprintf(stderr, "decode: tokensieve_decoder_next: %d %s\n", (int)rc,
                tokensieve_decoder_last_error(d));
        return -1;
    }
    return rc;
}

/* One run over the body in reads of `chunk` bytes; events go to `out` (NULL: dropped). */
static int run(tokensieve_decoder *d, const char *body, size_t len, size_t chunk, FILE *out) {
    size_t off;
    if (tokensieve_decoder_reset(d) != TOKENSIEVE_OK) return 4;
    for (off = 0; off < len; off += chunk) {
        size_t n = len - off < chunk ? len - off : chunk;
        if (tokensieve_decoder_feed(d, body + off, n) != TOKENSIEVE_OK) {
            fprintf(stderr, "decode: feed: %s\n", tokensieve_decoder_last_error(d));
            return 4;
        }
        if (drain(d, out) != TOKENSIEVE_NEED_MORE) return 4;
    }
    if (tokensieve_decoder_finish(d) != TOKENSIEVE_OK) return 4;
    return drain(d, out) == TOKENSIEVE_DONE ? 0 : 4;
}

int main(int argc, char **argv) {
    const char *config_path = NULL, *body_path = NULL, *mode = "json";
    void *base = NULL;
    tokensieve_decoder_config dc;
    size_t chunk = 0, body_len = 0, config_len = 0;
    int also = 0, i, status = 0;
    char *config_text, *body;
    tokensieve_decoder *d = NULL;
    int32_t rc;
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--supported") == 0 && i + 1 < argc) {
            uint32_t p;
            return (provider_code(argv[i + 1], &p) && tokensieve_provider_supported(p)) ? 0 : 1;
        } else if (strcmp(argv[i], "--config") == 0 && i + 1 < argc) config_path = argv[++i];
        else if (strcmp(argv[i], "--chunk") == 0 && i + 1 < argc) chunk = (size_t)strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--mode") == 0 && i + 1 < argc) mode = argv[++i];
        else if (strcmp(argv[i], "--json") == 0) continue;
        else if (strcmp(argv[i], "--also-sizes") == 0) also = 1;
        else body_path = argv[i];
    }
    if (!config_path || !body_path) {
        fprintf(stderr, "usage: decode --config F --chunk N --json BODY\n");
        return 2;
    }
    if (tokensieve_abi_version() != TOKENSIEVE_ABI_VERSION ||
        tokensieve_event_size() != sizeof(tokensieve_event)) {
        fprintf(stderr, "decode: ABI mismatch\n");
        return 2;
    }
    config_text = read_file(config_path, &config_len);
    body = read_file(body_path, &body_len);
    if (!config_text || !body) {
        fprintf(stderr, "decode: cannot read the config or the body\n");
        free(config_text);
        free(body);
        return 2;
    }
    if (chunk == 0) chunk = body_len ? body_len : 1;
    tokensieve_decoder_config_default(&dc);
    dc.text.accumulate = 1;
    if (strcmp(mode, "json") == 0) {
        rc = tokensieve_decoder_new_json(config_text, config_len, 1, &d);
    } else if (!read_config_with(config_text, &dc.text, decoder_key, &dc)) {
        fprintf(stderr, "decode: cannot read the config %s\n", config_text);
        rc = -100;
    } else if (strcmp(mode, "heap") == 0) {
        rc = tokensieve_decoder_new(&dc, &d);
    } else {
        size_t size = tokensieve_decoder_state_size(&dc);
        void *mem = size ? aligned_block(size, tokensieve_state_align(), &base) : NULL;
        rc = mem ? tokensieve_decoder_init(mem, size, &dc, &d) : -101;
    }
    if (rc != TOKENSIEVE_OK || !d) {
        fprintf(stderr, "decode: no decoder (%d): %s\n", (int)rc, tokensieve_decoder_last_error(NULL));
        free(config_text);
        free(body);
        free(base);
        while (n_owned) free(owned[--n_owned]);
        return 3;
    }
    if (also) {
        static const size_t sizes[] = {1, 2, 3, 5, 7, 64};
        size_t k;
        for (k = 0; k < sizeof sizes / sizeof sizes[0] && status == 0; k++)
            status = run(d, body, body_len, sizes[k], NULL);
    }
    if (status == 0) status = run(d, body, body_len, chunk, stdout);
    tokensieve_decoder_free(d);
    free(base);
    free(config_text);
    free(body);
    while (n_owned) free(owned[--n_owned]);
    return status;
}
