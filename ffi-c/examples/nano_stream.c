/* nano_stream: what a C server that runs a model on an NPU (RKLLM-style callback API) does
 * with tokensieve, end to end, without ever calling malloc.
 *
 * A simulated model delivers a realistic transcript 1-10 bytes at a time through a
 * callback, sometimes stopping inside a UTF-8 character (RKLLM reports that as its WAITING
 * state). Each piece is fed to a tokensieve parser living in caller-provided static memory;
 * the server prints what it would stream to its client: one JSON line per visible delta,
 *     {"seq":N,"delta":"…","end":false}
 * a line per tool call,
 *     {"seq":N,"tool_call":{"id":"…","name":"…","arguments":{…}},"end":false}
 * and finally {"seq":N,"delta":"","end":true}. Thinking is not streamed.
 *
 *   nano_stream [SEED]      (the chunking is pseudo-random from SEED; default 1)
 *
 * Build and run, from the repository root (the rpath lets the binary find libtokensieve.so
 * without LD_LIBRARY_PATH; ffi-c/test.sh builds it this way against its own build directory):
 *   cargo build --release -p tokensieve-ffi
 *   cc -std=c99 -I include ffi-c/examples/nano_stream.c -o nano_stream \
 *      -L target/release -ltokensieve -Wl,-rpath,"$PWD/target/release"
 *   ./nano_stream 3
 * or statically: cc -std=c99 -I include ffi-c/examples/nano_stream.c -o nano_stream \
 *      target/release/libtokensieve.a -lpthread -ldl -lm */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tokensieve.h"

/* --- the simulated model ---------------------------------------------------------------- */

typedef enum { LLM_RUN_NORMAL = 0, LLM_RUN_WAITING = 1, LLM_RUN_FINISH = 2 } llm_state;
typedef void (*llm_callback)(const char *text, size_t len, llm_state state, void *userdata);

static const char transcript[] =
    "I'll check the weather in S\xc3\xa3o Paulo for you \xe2\x80\x94 one moment \xf0\x9f\x8c\xa6\xef\xb8\x8f.\n"
    "<thinking>The user wants a forecast. Call get_weather with days=3.</thinking>\n"
    "Quote of the day: \"Pack an umbrella\" \\ said the \tforecaster.\n"
    "<function_calls>\n<invoke name=\"get_weather\">\n"
    "<parameter name=\"city\">S\xc3\xa3o Paulo</parameter>\n"
    "<parameter name=\"days\">3</parameter>\n"
    "</invoke>\n</function_calls>";

static unsigned long rng;
static unsigned next_rand(void) {
    rng = rng * 1103515245UL + 12345UL;
    return (unsigned)((rng >> 16) & 0x7fff);
}

/* Bytes of a UTF-8 sequence starting with b (1 for continuation bytes and ASCII). */
static size_t seq_len(unsigned char b) {
    return b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
}

static unsigned long utf8_splits;

/* Runs the "model": the callback gets pieces of 1-10 bytes; a piece that ends inside a
 * character comes with LLM_RUN_WAITING. The piece's buffer is valid during the call only. */
static void run_model(unsigned seed, llm_callback cb, void *userdata) {
    size_t off = 0, len = sizeof transcript - 1;
    char piece[16];
    rng = seed;
    while (off < len) {
        size_t n = 1 + next_rand() % 10, start, k;
        llm_state state = LLM_RUN_NORMAL;
        if (n > len - off) n = len - off;
        memcpy(piece, transcript + off, n);
        off += n;
        /* does the piece end inside a character? */
        for (start = off - 1, k = 0; k < 4 && start > 0 && (((unsigned char)transcript[start]) & 0xC0) == 0x80; k++)
            start--;
        if (start + seq_len((unsigned char)transcript[start]) > off) {
            state = LLM_RUN_WAITING;
            utf8_splits++;
        }
        cb(piece, n, state, userdata);
    }
    cb(NULL, 0, LLM_RUN_FINISH, userdata);
}

/* --- the server ------------------------------------------------------------------------- */

/* JSON string body: escapes quotes, backslashes, control characters. tokensieve's chunk
 * texts are whole UTF-8 characters, so the rest is copied as is. */
static void put_json_text(const char *p, size_t len) {
    size_t i;
    for (i = 0; i < len; i++) {
        unsigned char c = (unsigned char)p[i];
        switch (c) {
        case '"': fputs("\\\"", stdout); break;
        case '\\': fputs("\\\\", stdout); break;
        case '\n': fputs("\\n", stdout); break;
        case '\r': fputs("\\r", stdout); break;
        case '\t': fputs("\\t", stdout); break;
        default:
            if (c < 0x20) printf("\\u%04x", (unsigned)c);
            else putchar((int)c);
        }
    }
}

typedef struct {
    tokensieve_parser *parser;
    unsigned long seq;
    int failed;
} server;

static void drain(server *s) {
    tokensieve_event ev;
    int32_t rc;
    while ((rc = tokensieve_next(s->parser, &ev)) == TOKENSIEVE_EVENT) {
        if (ev.kind == TOKENSIEVE_KIND_CHUNK && (ev.flags & TOKENSIEVE_FLAG_VISIBLE)) {
            printf("{\"seq\":%lu,\"delta\":\"", s->seq++);
            put_json_text(ev.text.ptr, ev.text.len);
            fputs("\",\"end\":false}\n", stdout);
        } else if (ev.kind == TOKENSIEVE_KIND_BLOCK_COMPLETE && ev.block_type == TOKENSIEVE_BLOCK_TOOL_CALL &&
                   ev.error_code == TOKENSIEVE_CALL_OK && ev.input.ptr &&
                   !(ev.flags & TOKENSIEVE_FLAG_ACCUMULATED_TRUNCATED)) {
            printf("{\"seq\":%lu,\"tool_call\":{\"id\":\"", s->seq++);
            put_json_text(ev.tool_id.ptr, ev.tool_id.len);
            fputs("\",\"name\":\"", stdout);
            put_json_text(ev.tool_name.ptr, ev.tool_name.len);
            fputs("\",\"arguments\":", stdout);
            fwrite(ev.input.ptr, 1, ev.input.len, stdout); /* compact JSON already */
            fputs("},\"end\":false}\n", stdout);
        }
    }
    if (rc < 0) {
        fprintf(stderr, "nano_stream: %s\n", tokensieve_last_error(s->parser));
        s->failed = 1;
    }
}

static void on_model_output(const char *text, size_t len, llm_state state, void *userdata) {
    server *s = (server *)userdata;
    if (state == LLM_RUN_FINISH) {
        tokensieve_finish(s->parser);
        drain(s);
        printf("{\"seq\":%lu,\"delta\":\"\",\"end\":true}\n", s->seq++);
        return;
    }
    /* NORMAL or WAITING alike: tokensieve holds a split character until it completes. The
     * piece is only valid during this callback, so drain before returning. */
    if (tokensieve_feed(s->parser, text, len) != TOKENSIEVE_OK) {
        fprintf(stderr, "nano_stream: %s\n", tokensieve_last_error(s->parser));
        s->failed = 1;
        return;
    }
    drain(s);
}

/* All of the parser's memory: no malloc anywhere in this program's parsing path. */
static unsigned char arena[16384];

int main(int argc, char **argv) {
    unsigned seed = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 1u;
    tokensieve_tool tool;
    tokensieve_config config;
    server s;
    size_t need, align = tokensieve_state_align();
    unsigned char *mem = arena + (align - (uintptr_t)arena % align) % align;

    if (tokensieve_abi_version() != TOKENSIEVE_ABI_VERSION || tokensieve_event_size() != sizeof(tokensieve_event)) {
        fprintf(stderr, "nano_stream: libtokensieve does not match tokensieve.h\n");
        return 1;
    }
    tokensieve_config_default(&config);
    config.dialect = TOKENSIEVE_DIALECT_ANTHROPIC_XML;
    tool.name = "get_weather";
    tool.schema = "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"},\"days\":{\"type\":\"integer\"}}}";
    config.tools = &tool;
    config.tools_len = 1;
    config.accumulate = 1;        /* tool calls arrive whole, with their input */
    config.accumulate_size = 1024;
    need = tokensieve_state_size(&config);
    if (need == 0 || need > sizeof arena - align) {
        fprintf(stderr, "nano_stream: need %lu bytes: %s\n", (unsigned long)need, tokensieve_last_error(NULL));
        return 1;
    }
    s.parser = tokensieve_init(mem, need, &config);
    s.seq = 0;
    s.failed = 0;
    if (!s.parser) {
        fprintf(stderr, "nano_stream: %s\n", tokensieve_last_error(NULL));
        return 1;
    }
    run_model(seed, on_model_output, &s);
    fprintf(stderr, "nano_stream: seed %u, %lu UTF-8 characters split by the model, %lu bytes of state\n",
            seed, utf8_splits, (unsigned long)need);
    return s.failed;
}
