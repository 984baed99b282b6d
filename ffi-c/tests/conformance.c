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

/* --- a small JSON reader, enough for the vectors' config objects -------------------- */

typedef struct {
    const char *s;
    size_t i, n;
    int err;
} jr;

static void ws(jr *r) {
    while (r->i < r->n && strchr(" \t\r\n", r->s[r->i]) && r->s[r->i]) r->i++;
}

static int peek(jr *r) {
    ws(r);
    return r->i < r->n ? (unsigned char)r->s[r->i] : -1;
}

static int expect(jr *r, char c) {
    if (peek(r) != (unsigned char)c) { r->err = 1; return 0; }
    r->i++;
    return 1;
}

static unsigned hex4(const char *p) {
    unsigned v = 0;
    int k;
    for (k = 0; k < 4; k++) {
        char c = p[k];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
    }
    return v;
}

static size_t put_utf8(char *o, unsigned cp) {
    if (cp < 0x80) { o[0] = (char)cp; return 1; }
    if (cp < 0x800) { o[0] = (char)(0xC0 | (cp >> 6)); o[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12)); o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F)); return 3;
    }
    o[0] = (char)(0xF0 | (cp >> 18)); o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F)); o[3] = (char)(0x80 | (cp & 0x3F)); return 4;
}

/* A string value, decoded into a new NUL-terminated buffer. */
static char *jstring(jr *r) {
    char *out, *o;
    if (!expect(r, '"')) return NULL;
    out = (char *)malloc(r->n - r->i + 1);
    o = out;
    while (r->i < r->n && r->s[r->i] != '"') {
        char c = r->s[r->i++];
        if (c != '\\') { *o++ = c; continue; }
        c = r->s[r->i++];
        switch (c) {
        case 'n': *o++ = '\n'; break;
        case 't': *o++ = '\t'; break;
        case 'r': *o++ = '\r'; break;
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'u': {
            unsigned cp = hex4(r->s + r->i);
            r->i += 4;
            if (cp >= 0xD800 && cp < 0xDC00 && r->s[r->i] == '\\' && r->s[r->i + 1] == 'u') {
                unsigned lo = hex4(r->s + r->i + 2);
                if (lo >= 0xDC00 && lo < 0xE000) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    r->i += 6;
                }
            }
            o += put_utf8(o, cp);
            break;
        }
        default: *o++ = c; break;
        }
    }
    r->i++;
    *o = 0;
    return out;
}

/* Skips any value; returns a copy of its raw text. */
static char *jraw(jr *r) {
    size_t start, depth = 0;
    char *out;
    ws(r);
    start = r->i;
    do {
        char c = r->s[r->i];
        if (c == '"') {
            r->i++;
            while (r->i < r->n && r->s[r->i] != '"') r->i += (r->s[r->i] == '\\') ? 2 : 1;
            r->i++;
        } else if (c == '{' || c == '[') {
            depth++;
            r->i++;
        } else if (c == '}' || c == ']') {
            depth--;
            r->i++;
        } else if (c == ',' || c == ':') {
            r->i++;
        } else {
            while (r->i < r->n && !strchr(",:]}", r->s[r->i]) && r->s[r->i]) r->i++;
        }
        ws(r);
    } while (depth > 0 && r->i < r->n);
    out = (char *)malloc(r->i - start + 1);
    memcpy(out, r->s + start, r->i - start);
    out[r->i - start] = 0;
    return out;
}

/* Everything the config owns, freed at exit. */
static char *owned[4096];
static size_t n_owned;
static char *keep(char *p) {
    if (n_owned < sizeof owned / sizeof owned[0]) owned[n_owned++] = p;
    return p;
}

static int read_pair(jr *r, const char **a, const char **b) {
    if (!expect(r, '[')) return 0;
    *a = keep(jstring(r));
    expect(r, ',');
    *b = keep(jstring(r));
    return expect(r, ']');
}

static int dialect_code(const char *name, uint32_t *out) {
    static const char *names[] = {"passthrough", "anthropic-xml", "hermes", "morph-xml", "qwen3-coder"};
    uint32_t k;
    for (k = 0; k < 5; k++)
        if (strcmp(names[k], name) == 0) { *out = k; return 1; }
    return 0;
}

static const char *stops[64];
static tokensieve_tool tools[64];

/* Reads the vector's config object into *c (strings owned by `owned`). */
static int read_config(const char *text, tokensieve_config *c) {
    jr r;
    r.s = text; r.i = 0; r.n = strlen(text); r.err = 0;
    if (!expect(&r, '{')) return 0;
    while (!r.err && peek(&r) == '"') {
        char *key = keep(jstring(&r));
        expect(&r, ':');
        if (strcmp(key, "dialect") == 0) {
            if (!dialect_code(keep(jstring(&r)), &c->dialect)) return 0;
        } else if (strcmp(key, "thinking_tags") == 0) {
            read_pair(&r, &c->thinking_open, &c->thinking_close);
        } else if (strcmp(key, "tool_call_markers") == 0) {
            read_pair(&r, &c->tool_call_open, &c->tool_call_close);
        } else if (strcmp(key, "start_in") == 0) {
            c->start_in = strcmp(keep(jstring(&r)), "thinking") == 0 ? TOKENSIEVE_START_IN_THINKING
                                                                     : TOKENSIEVE_START_IN_TEXT;
        } else if (strcmp(key, "on_malformed") == 0) {
            c->on_malformed = strcmp(keep(jstring(&r)), "drop") == 0 ? TOKENSIEVE_ON_MALFORMED_DROP
                                                                     : TOKENSIEVE_ON_MALFORMED_TEXT;
        } else if (strcmp(key, "id_prefix") == 0) {
            c->id_prefix = keep(jstring(&r));
        } else if (strcmp(key, "max_call_bytes") == 0) {
            c->max_call_bytes = (size_t)strtoul(keep(jraw(&r)), NULL, 10);
        } else if (strcmp(key, "stop_sequences") == 0) {
            expect(&r, '[');
            while (!r.err && peek(&r) == '"') {
                if (c->stop_sequences_len < 64) stops[c->stop_sequences_len++] = keep(jstring(&r));
                if (peek(&r) == ',') r.i++;
            }
            expect(&r, ']');
            c->stop_sequences = stops;
        } else if (strcmp(key, "tools") == 0) {
            expect(&r, '[');
            while (!r.err && peek(&r) == '{') {
                tokensieve_tool *t = &tools[c->tools_len < 63 ? c->tools_len : 63];
                t->name = NULL;
                t->schema = NULL;
                r.i++;
                while (!r.err && peek(&r) == '"') {
                    char *k = keep(jstring(&r));
                    expect(&r, ':');
                    if (strcmp(k, "name") == 0) t->name = keep(jstring(&r));
                    else if (strcmp(k, "schema") == 0)
                        /* A schema may also arrive as JSON text in a string. */
                        t->schema = keep(peek(&r) == '"' ? jstring(&r) : jraw(&r));
                    else keep(jraw(&r));
                    if (peek(&r) == ',') r.i++;
                }
                expect(&r, '}');
                if (c->tools_len < 64) c->tools_len++;
                if (peek(&r) == ',') r.i++;
            }
            expect(&r, ']');
            c->tools = tools;
        } else {
            fprintf(stderr, "conformance: unknown config key %s\n", key);
            return 0;
        }
        if (peek(&r) == ',') r.i++;
    }
    return expect(&r, '}') && !r.err;
}

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
    } else if (!read_config(config_text, &c)) {
        fprintf(stderr, "conformance: cannot read the config %s\n", config_text);
        return 2;
    } else if (strcmp(mode, "heap") == 0) {
        p = tokensieve_new(&c);
    } else {
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
