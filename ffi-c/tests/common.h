/* Helpers shared by the C tests: file reading, JSON string output (with Rust's lossy UTF-8
 * replacement for invalid bytes), and an event printer that writes the JSON form of
 * DESIGN.md from the fields of a tokensieve_event. Header-only, C99 and C++. */
#ifndef TOKENSIEVE_TEST_COMMON_H
#define TOKENSIEVE_TEST_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tokensieve.h"

/* Reads a whole file (NUL-terminated as well); NULL on failure. */
static char *read_file(const char *path, size_t *len_out) {
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t len = 0, cap = 0;
    if (!f) return NULL;
    for (;;) {
        size_t n;
        if (cap - len < 4096) {
            char *nb;
            cap = cap ? cap * 2 : 8192;
            nb = (char *)realloc(buf, cap + 1);
            if (!nb) { free(buf); fclose(f); return NULL; }
            buf = nb;
        }
        n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0) break;
    }
    fclose(f);
    buf[len] = 0;
    if (len_out) *len_out = len;
    return buf;
}

/* Length of the valid UTF-8 sequence at s (n > 0 bytes available), or 0 when invalid, in
 * which case *bad is the length of the maximal invalid subpart (as Rust's from_utf8_lossy). */
static size_t utf8_seq(const unsigned char *s, size_t n, size_t *bad) {
    unsigned char b = s[0];
    size_t need, k;
    unsigned char lo = 0x80, hi = 0xBF;
    if (b < 0x80) return 1;
    if (b >= 0xC2 && b <= 0xDF) need = 1;
    else if (b == 0xE0) { need = 2; lo = 0xA0; }
    else if ((b >= 0xE1 && b <= 0xEC) || b == 0xEE || b == 0xEF) need = 2;
    else if (b == 0xED) { need = 2; hi = 0x9F; }
    else if (b == 0xF0) { need = 3; lo = 0x90; }
    else if (b >= 0xF1 && b <= 0xF3) need = 3;
    else if (b == 0xF4) { need = 3; hi = 0x8F; }
    else { *bad = 1; return 0; }
    for (k = 1; k <= need; k++) {
        unsigned char c;
        if (k >= n) { *bad = k; return 0; }
        c = s[k];
        if (k == 1 ? (c < lo || c > hi) : (c < 0x80 || c > 0xBF)) { *bad = k; return 0; }
    }
    return need + 1;
}

/* Writes bytes as a JSON string literal: escapes quotes, backslashes and control
 * characters; invalid UTF-8 becomes U+FFFD. */
static void json_str(FILE *out, const char *p, size_t len) {
    const unsigned char *s = (const unsigned char *)p;
    size_t i = 0;
    fputc('"', out);
    while (i < len) {
        unsigned char c = s[i];
        size_t bad = 0, n;
        if (c == '"') { fputs("\\\"", out); i++; continue; }
        if (c == '\\') { fputs("\\\\", out); i++; continue; }
        if (c < 0x20) {
            switch (c) {
            case '\n': fputs("\\n", out); break;
            case '\r': fputs("\\r", out); break;
            case '\t': fputs("\\t", out); break;
            case '\b': fputs("\\b", out); break;
            case '\f': fputs("\\f", out); break;
            default: fprintf(out, "\\u%04x", (unsigned)c); break;
            }
            i++;
            continue;
        }
        n = utf8_seq(s + i, len - i, &bad);
        if (n == 0) {
            fputs("\xEF\xBF\xBD", out);
            i += bad;
        } else {
            fwrite(s + i, 1, n, out);
            i += n;
        }
    }
    fputc('"', out);
}

static const char *block_name(uint32_t t) {
    switch (t) {
    case TOKENSIEVE_BLOCK_TEXT: return "text";
    case TOKENSIEVE_BLOCK_THINKING: return "thinking";
    case TOKENSIEVE_BLOCK_TOOL_CALL: return "tool_call";
    case TOKENSIEVE_BLOCK_TOOL_RESULT: return "tool_result";
    default: return "?";
    }
}

static const char *part_name(uint32_t p) {
    switch (p) {
    case TOKENSIEVE_PART_NAME: return "name";
    case TOKENSIEVE_PART_ID: return "id";
    case TOKENSIEVE_PART_INPUT: return "input";
    default: return NULL;
    }
}

static void json_key_str(FILE *out, const char *key, tokensieve_str s) {
    if (!s.ptr) return;
    fprintf(out, ",\"%s\":", key);
    json_str(out, s.ptr, s.len);
}

/* ,"choice":N when the event belongs to a choice other than the first (provider streams). */
static void json_choice(FILE *out, const tokensieve_event *e) {
    if (e->choice != 0) fprintf(out, ",\"choice\":%lu", (unsigned long)e->choice);
}

static const char *finish_name(uint32_t r) {
    switch (r) {
    case TOKENSIEVE_FINISH_STOP: return "stop";
    case TOKENSIEVE_FINISH_LENGTH: return "length";
    case TOKENSIEVE_FINISH_TOOL_CALLS: return "tool_calls";
    case TOKENSIEVE_FINISH_CONTENT_FILTER: return "content_filter";
    case TOKENSIEVE_FINISH_MALFORMED_TOOL_CALL: return "malformed_tool_call";
    case TOKENSIEVE_FINISH_REFUSAL: return "refusal";
    case TOKENSIEVE_FINISH_ERROR: return "error";
    case TOKENSIEVE_FINISH_OTHER: return "other";
    default: return "?";
    }
}

/* The usage object of a finish: the counters whose presence bit is set, in the JSON form's
 * order. */
static void json_usage(FILE *out, const tokensieve_event *e) {
    const char *names[5] = {"input_tokens", "output_tokens", "cache_read_tokens",
                            "cache_write_tokens", "reasoning_tokens"};
    const uint32_t bits[5] = {TOKENSIEVE_USAGE_INPUT_TOKENS, TOKENSIEVE_USAGE_OUTPUT_TOKENS,
                              TOKENSIEVE_USAGE_CACHE_READ_TOKENS,
                              TOKENSIEVE_USAGE_CACHE_WRITE_TOKENS,
                              TOKENSIEVE_USAGE_REASONING_TOKENS};
    const uint64_t values[5] = {e->input_tokens, e->output_tokens, e->cache_read_tokens,
                                e->cache_write_tokens, e->reasoning_tokens};
    int k, first = 1;
    fputs(",\"usage\":{", out);
    for (k = 0; k < 5; k++) {
        if (!(e->usage_present & bits[k])) continue;
        fprintf(out, "%s\"%s\":%llu", first ? "" : ",", names[k], (unsigned long long)values[k]);
        first = 0;
    }
    fputs("}", out);
}

/* One event as a line of the JSON form (DESIGN.md; docs/providers.md for the provider
 * fields), from the struct's fields only. */
static void print_event(FILE *out, const tokensieve_event *e) {
    switch (e->kind) {
    case TOKENSIEVE_KIND_BLOCK_START:
        fprintf(out, "{\"event\":\"block_start\",\"index\":%lu,\"type\":\"%s\"",
                (unsigned long)e->index, block_name(e->block_type));
        json_choice(out, e);
        fputs("}\n", out);
        break;
    case TOKENSIEVE_KIND_CHUNK: {
        const char *part = part_name(e->part);
        fputs("{\"event\":\"chunk\",\"text\":", out);
        json_str(out, e->text.ptr, e->text.len);
        fprintf(out, ",\"type\":\"%s\",\"visible\":%s,\"block\":%lu,\"depth\":%lu",
                block_name(e->block_type),
                (e->flags & TOKENSIEVE_FLAG_VISIBLE) ? "true" : "false",
                (unsigned long)e->index, (unsigned long)e->depth);
        if (part) fprintf(out, ",\"part\":\"%s\"", part);
        json_key_str(out, "tool_name", e->tool_name);
        json_key_str(out, "tool_id", e->tool_id);
        json_choice(out, e);
        fputs("}\n", out);
        break;
    }
    case TOKENSIEVE_KIND_BLOCK_COMPLETE:
        fprintf(out, "{\"event\":\"block_complete\",\"index\":%lu,\"type\":\"%s\"",
                (unsigned long)e->index, block_name(e->block_type));
        json_key_str(out, "content", e->content);
        json_key_str(out, "tool_name", e->tool_name);
        json_key_str(out, "tool_id", e->tool_id);
        if (e->input.ptr) {
            fputs(",\"input\":", out);
            fwrite(e->input.ptr, 1, e->input.len, out);
        }
        if (e->error_code != TOKENSIEVE_CALL_OK) {
            fputs(",\"error\":{\"reason\":", out);
            json_str(out, e->error_reason.ptr, e->error_reason.len);
            fputs(",\"raw\":", out);
            json_str(out, e->error_raw.ptr, e->error_raw.len);
            fputs("}", out);
        }
        if (e->flags & TOKENSIEVE_FLAG_IS_ERROR) fputs(",\"is_error\":true", out);
        json_choice(out, e);
        if (e->flags & TOKENSIEVE_FLAG_REFUSAL) fputs(",\"refusal\":true", out);
        if (e->flags & TOKENSIEVE_FLAG_SERVER) fputs(",\"server\":true", out);
        json_key_str(out, "signature", e->signature);
        json_key_str(out, "redacted", e->redacted);
        if (e->flags & TOKENSIEVE_FLAG_COMPACTION) fputs(",\"compaction\":true", out);
        if (e->citations.ptr) {
            /* already compact JSON: an array of the citation objects */
            fputs(",\"citations\":", out);
            fwrite(e->citations.ptr, 1, e->citations.len, out);
        }
        fputs("}\n", out);
        break;
    case TOKENSIEVE_KIND_STOP:
        fputs("{\"event\":\"stop\",\"sequence\":", out);
        json_str(out, e->text.ptr, e->text.len);
        fputs("}\n", out);
        break;
    case TOKENSIEVE_KIND_FINISH:
        fprintf(out, "{\"event\":\"finish\",\"reason\":\"%s\"", finish_name(e->finish_reason));
        json_key_str(out, "raw_reason", e->raw_reason);
        if (e->flags & TOKENSIEVE_FLAG_USAGE) json_usage(out, e);
        json_key_str(out, "response_id", e->response_id);
        json_key_str(out, "model", e->model);
        json_choice(out, e);
        fputs("}\n", out);
        break;
    case TOKENSIEVE_KIND_ERROR:
        fprintf(out, "{\"event\":\"error\",\"source\":\"%s\"",
                e->error_source == TOKENSIEVE_ERROR_SOURCE_FRAMING ? "framing" : "provider");
        json_key_str(out, "code", e->code);
        fputs(",\"message\":", out);
        json_str(out, e->message.ptr, e->message.len);
        fputs("}\n", out);
        break;
    default:
        fprintf(out, "{\"event\":\"unknown-kind-%lu\"}\n", (unsigned long)e->kind);
    }
}

#endif
