/* A small JSON reader, enough for the vectors' config objects, and read_config: a vector's
 * config into a tokensieve_config (what conformance.c and decode.c pass to the struct-config
 * entry points). Header-only, C99 and C++. */
#ifndef TOKENSIEVE_TEST_JSONCONFIG_H
#define TOKENSIEVE_TEST_JSONCONFIG_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tokensieve.h"

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

/* Skips one JSON object or array at the reader's position (strings and nesting followed). */
static void skip_compound(jr *r) {
    int depth = 0, in_string = 0;
    ws(r);
    while (r->i < r->n) {
        char ch = r->s[r->i++];
        if (in_string) {
            if (ch == '\\') r->i++;
            else if (ch == '"') in_string = 0;
        } else if (ch == '"') {
            in_string = 1;
        } else if (ch == '{' || ch == '[') {
            depth++;
        } else if (ch == '}' || ch == ']') {
            if (--depth == 0) return;
        }
    }
    r->err = 1;
}

/* The first non-blank byte after the `[` at the reader's position (which must be one). */
static int peek_after_bracket(jr *r) {
    size_t j = r->i + 1;
    while (j < r->n && strchr(" \t\r\n", r->s[j]) && r->s[j]) j++;
    return j < r->n ? (unsigned char)r->s[j] : -1;
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

/* Set when the config holds what the struct config cannot carry (more than one spelling of
 * `thinking_tags`, which only the JSON config takes): the harness then builds the parser
 * from the JSON text in every mode. */
static int needs_json_config = 0;

/* `thinking_tags`: a pair, or a list of pairs (the first in force, the rest other
 * spellings — JSON config only). */
static int read_thinking(jr *r, const char **a, const char **b) {
    if (peek(r) == '[' && peek_after_bracket(r) == '[') {
        expect(r, '[');
        if (!read_pair(r, a, b)) return 0;
        while (peek(r) == ',') {
            const char *x, *y;
            expect(r, ',');
            if (!read_pair(r, &x, &y)) return 0;
        }
        needs_json_config = 1;
        return expect(r, ']');
    }
    return read_pair(r, a, b);
}

/* The library names its dialects (aliases too): every dialect with vectors is covered, a new
 * one without editing a list here. */
static int dialect_code(const char *name, uint32_t *out) {
    int32_t code = tokensieve_dialect_from_name(name);
    if (code < 0) return 0;
    *out = (uint32_t)code;
    return 1;
}

static const char *stops[64];
static tokensieve_tool tools[64];

/* A hook for keys read_config does not know (the decoder's `provider`, …): reads the value
 * and returns 1, or returns 0 for an unknown key. */
typedef int (*extra_key)(jr *r, const char *key, void *ctx);

/* Reads the vector's config object into *c (strings owned by `owned`); `extra` (may be NULL)
 * takes the keys it does not know. */
static int read_config_with(const char *text, tokensieve_config *c, extra_key extra, void *ctx) {
    jr r;
    r.s = text; r.i = 0; r.n = strlen(text); r.err = 0;
    if (!expect(&r, '{')) return 0;
    while (!r.err && peek(&r) == '"') {
        char *key = keep(jstring(&r));
        expect(&r, ':');
        if (strcmp(key, "dialect") == 0) {
            if (peek(&r) == '{') {
                /* A host-written description: only the JSON config carries it. */
                skip_compound(&r);
                needs_json_config = 1;
            } else if (!dialect_code(keep(jstring(&r)), &c->dialect)) return 0;
        } else if (strcmp(key, "thinking_tags") == 0) {
            read_thinking(&r, &c->thinking_open, &c->thinking_close);
        } else if (strcmp(key, "tool_call_markers") == 0) {
            read_pair(&r, &c->tool_call_open, &c->tool_call_close);
        } else if (strcmp(key, "start_in") == 0) {
            c->start_in = strcmp(keep(jstring(&r)), "thinking") == 0 ? TOKENSIEVE_START_IN_THINKING
                                                                     : TOKENSIEVE_START_IN_TEXT;
        } else if (strcmp(key, "on_malformed") == 0) {
            c->on_malformed = strcmp(keep(jstring(&r)), "drop") == 0 ? TOKENSIEVE_ON_MALFORMED_DROP
                                                                     : TOKENSIEVE_ON_MALFORMED_TEXT;
        } else if (strcmp(key, "unknown_tools") == 0) {
            c->unknown_tools = strcmp(keep(jstring(&r)), "fail") == 0 ? TOKENSIEVE_UNKNOWN_TOOLS_FAIL
                                                                     : TOKENSIEVE_UNKNOWN_TOOLS_CALL;
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
        } else if (!extra || !extra(&r, key, ctx)) {
            fprintf(stderr, "conformance: unknown config key %s\n", key);
            return 0;
        }
        if (peek(&r) == ',') r.i++;
    }
    return expect(&r, '}') && !r.err;
}

#endif
