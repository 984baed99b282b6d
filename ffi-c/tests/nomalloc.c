/* Proof that a caller-memory parser (and decoder) never touches the heap: this program interposes the
 * allocator (malloc, calloc, realloc, free, posix_memalign, aligned_alloc, memalign) and
 * counts every call made while tokensieve_state_size, tokensieve_init, prefill, feed,
 * next, finish and reset run, over a transcript with text, thinking, a tool region with
 * typed parameters, a failed call, a tool result and a stop sequence, at several chunk
 * sizes, with accumulation on; and the same for a caller-memory provider-stream decoder
 * (tokensieve_decoder_state_size, _init, feed, next, finish, reset) over an OpenAI Chat
 * body with reasoning, text running through the hermes text dialect, a streamed tool call,
 * a finish with usage. It also checks that the interposition works (a heap parser
 * does allocate). glibc only (uses the __libc_* entry points). Prints "N passed, M failed". */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tokensieve.h"

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);

static volatile long counting, calls;

void *malloc(size_t n) { if (counting) calls++; return __libc_malloc(n); }
void *calloc(size_t a, size_t b) { if (counting) calls++; return __libc_calloc(a, b); }
void *realloc(void *p, size_t n) { if (counting) calls++; return __libc_realloc(p, n); }
void free(void *p) { if (counting && p) calls++; __libc_free(p); }
void *memalign(size_t a, size_t n) { if (counting) calls++; return __libc_memalign(a, n); }
void *aligned_alloc(size_t a, size_t n) { if (counting) calls++; return __libc_memalign(a, n); }
int posix_memalign(void **out, size_t a, size_t n) {
    void *p;
    if (counting) calls++;
    p = __libc_memalign(a, n);
    if (!p) return 12;
    *out = p;
    return 0;
}

static const char transcript[] =
    "Let me look that up \xe2\x80\x94 one moment. \xf0\x9f\x94\x8d"
    "<thinking>The user wants the weather in Z\xc3\xbcrich; call the tool.</thinking>"
    "<function_calls><invoke name=\"get_weather\">"
    "<parameter name=\"city\">Z\xc3\xbcrich</parameter>"
    "<parameter name=\"days\"> 3 </parameter>"
    "<parameter name=\"units\">[\"C\", \"F\"]</parameter>"
    "</invoke><invoke>no name here</invoke></function_calls>"
    "<function_results><result><tool_name>get_weather</tool_name><stdout>12\xc2\xb0" "C, rain</stdout>"
    "</result></function_results>"
    "It is 12\xc2\xb0" "C and \"rainy\" in Z\xc3\xbcrich.\nHuman: this is past the stop";

static unsigned char memory[1 << 16];
static unsigned char decoder_memory[1 << 16];

static const char body[] =
    "data: {\"id\":\"r1\",\"model\":\"m\",\"choices\":[{\"delta\":{\"reasoning_content\":\"Think \\u00fc\"}}]}\n\n"
    "data: {\"choices\":[{\"delta\":{\"content\":\"Hi <tool_call>{\\\"name\\\": \\\"f\\\", "
    "\\\"arguments\\\": {\\\"a\\\": 1}}</tool_call> \\u00e9\"}}]}\n\n"
    "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"function\":"
    "{\"name\":\"get_weather\",\"arguments\":\"{\\\"city\\\":\"}}]}}]}\n\n"
    "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"\\\"Paris\\\"}\"}}]}}]}\n\n"
    "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n"
    "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2}}\n\n"
    "data: [DONE]\n\n";

static int passed, failed;
#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (cond) passed++;                                                          \
        else { failed++; fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); } \
    } while (0)

static int finish_ok(const tokensieve_event *ev) {
    return ev->finish_reason == TOKENSIEVE_FINISH_TOOL_CALLS && (ev->flags & TOKENSIEVE_FLAG_USAGE) &&
           ev->output_tokens == 2 && ev->input_tokens == 5;
}

/* The decoder in caller memory, over `body` at every chunk size, twice (after resets). */
static void decoder_no_heap(void) {
    static const size_t sizes[] = {1, 2, 3, 5, 7, 64, sizeof body - 1};
    tokensieve_decoder_config dc;
    tokensieve_decoder *d = NULL;
    tokensieve_event ev;
    unsigned char *mem;
    size_t k, size;
    int round;
    int32_t rc;

    tokensieve_decoder_config_default(&dc);
    dc.text.dialect = TOKENSIEVE_DIALECT_HERMES;
    dc.text.accumulate = 1;
    /* The interposer works: a heap decoder allocates. */
    counting = 1;
    calls = 0;
    rc = tokensieve_decoder_new(&dc, &d);
    counting = 0;
    CHECK(rc == TOKENSIEVE_OK && (calls > 0 || getenv("TOKENSIEVE_VALGRIND") != NULL));
    tokensieve_decoder_free(d);

    counting = 1;
    calls = 0;
    size = tokensieve_decoder_state_size(&dc);
    mem = decoder_memory + ((tokensieve_state_align() - ((size_t)decoder_memory % tokensieve_state_align())) % tokensieve_state_align());
    rc = size && size <= sizeof decoder_memory - 64 ? tokensieve_decoder_init(mem, size, &dc, &d) : -100;
    counting = 0;
    CHECK(rc == TOKENSIEVE_OK && d != NULL);
    CHECK(calls == 0);
    if (rc != TOKENSIEVE_OK) {
        fprintf(stderr, "decoder: %s\n", tokensieve_decoder_last_error(NULL));
        return;
    }
    for (round = 0; round < 2; round++) {
        for (k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            size_t off, len = sizeof body - 1;
            int saw_think = 0, saw_f = 0, saw_call = 0, saw_finish = 0;
            counting = 1;
            calls = 0;
            tokensieve_decoder_reset(d);
            for (off = 0; off < len; off += sizes[k]) {
                size_t n = len - off < sizes[k] ? len - off : sizes[k];
                tokensieve_decoder_feed(d, body + off, n);
                while (tokensieve_decoder_next(d, &ev) == TOKENSIEVE_EVENT) {
                    if (ev.kind == TOKENSIEVE_KIND_BLOCK_COMPLETE && ev.block_type == TOKENSIEVE_BLOCK_THINKING)
                        saw_think = ev.content.len == 8 && memcmp(ev.content.ptr, "Think \xc3\xbc", 8) == 0;
                    if (ev.kind == TOKENSIEVE_KIND_BLOCK_COMPLETE && ev.block_type == TOKENSIEVE_BLOCK_TOOL_CALL) {
                        if (ev.tool_name.len == 1 && memcmp(ev.tool_name.ptr, "f", 1) == 0)
                            saw_f = ev.input.len == 7 && memcmp(ev.input.ptr, "{\"a\":1}", 7) == 0;
                        else
                            saw_call = ev.input.len == 16 && memcmp(ev.input.ptr, "{\"city\":\"Paris\"}", 16) == 0;
                    }
                    if (ev.kind == TOKENSIEVE_KIND_FINISH) saw_finish = finish_ok(&ev);
                }
            }
            tokensieve_decoder_finish(d);
            while (tokensieve_decoder_next(d, &ev) == TOKENSIEVE_EVENT)
                if (ev.kind == TOKENSIEVE_KIND_FINISH) saw_finish = finish_ok(&ev);
            counting = 0;
            CHECK(calls == 0);
            if (calls) fprintf(stderr, "decoder, chunk size %lu: %ld allocator calls\n", (unsigned long)sizes[k], calls);
            CHECK(saw_think && saw_f && saw_call && saw_finish);
            if (!(saw_think && saw_f && saw_call && saw_finish))
                fprintf(stderr, "decoder, chunk size %lu: think %d f %d call %d finish %d\n",
                        (unsigned long)sizes[k], saw_think, saw_f, saw_call, saw_finish);
        }
    }
    tokensieve_decoder_free(d);
    CHECK(tokensieve_decoder_feed(d, "x", 1) == TOKENSIEVE_E_INVALID);
}

int main(void) {
    static const size_t sizes[] = {1, 2, 3, 5, 7, 64, sizeof transcript - 1};
    const char *stops[1] = {"\nHuman:"};
    tokensieve_tool tool;
    tokensieve_config c;
    tokensieve_parser *p;
    tokensieve_event ev;
    size_t k, size, events_first = 0;
    unsigned char *mem;
    int round;

    /* The interposer works: a heap parser allocates. */
    tokensieve_config_default(&c);
    c.dialect = TOKENSIEVE_DIALECT_ANTHROPIC_XML;
    counting = 1;
    calls = 0;
    p = tokensieve_new(&c);
    counting = 0;
    /* Under valgrind its own allocator replaces ours: the counts then prove nothing, and the
     * run is there for memory errors and leaks (test.sh sets TOKENSIEVE_VALGRIND). */
    CHECK(p != NULL && (calls > 0 || getenv("TOKENSIEVE_VALGRIND") != NULL));
    tokensieve_free(p);

    tool.name = "get_weather";
    tool.schema = "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"},"
                  "\"days\":{\"type\":\"integer\"},\"units\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}}}";
    c.tools = &tool;
    c.tools_len = 1;
    c.stop_sequences = stops;
    c.stop_sequences_len = 1;
    c.accumulate = 1;

    counting = 1;
    calls = 0;
    size = tokensieve_state_size(&c);
    mem = memory + ((tokensieve_state_align() - ((size_t)memory % tokensieve_state_align())) % tokensieve_state_align());
    p = size && size <= sizeof memory - 64 ? tokensieve_init(mem, size, &c) : NULL;
    counting = 0;
    CHECK(p != NULL);
    CHECK(calls == 0);
    if (!p) {
        printf("nomalloc: %d passed, %d failed\n", passed, failed + 1);
        return 1;
    }
    for (round = 0; round < 2; round++) {
        for (k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            size_t off, n_events = 0, len = sizeof transcript - 1;
            int32_t rc = TOKENSIEVE_NEED_MORE;
            int saw_call = 0, saw_fail = 0, saw_result = 0, saw_stop = 0;
            counting = 1;
            calls = 0;
            tokensieve_reset(p);
            if (round == 1) tokensieve_prefill(p, "Assistant: ", 11);
            for (off = 0; off < len && rc != TOKENSIEVE_DONE; off += sizes[k]) {
                size_t n = len - off < sizes[k] ? len - off : sizes[k];
                tokensieve_feed(p, transcript + off, n);
                while ((rc = tokensieve_next(p, &ev)) == TOKENSIEVE_EVENT) {
                    n_events++;
                    if (ev.kind == TOKENSIEVE_KIND_BLOCK_COMPLETE && ev.block_type == TOKENSIEVE_BLOCK_TOOL_CALL) {
                        if (ev.error_code) saw_fail = 1;
                        else saw_call = ev.input.len == 45 &&
                                        memcmp(ev.input.ptr, "{\"city\":\"Z\xc3\xbcrich\",\"days\":3,\"units\":[\"C\",\"F\"]}", 45) == 0;
                    }
                    if (ev.kind == TOKENSIEVE_KIND_BLOCK_COMPLETE && ev.block_type == TOKENSIEVE_BLOCK_TOOL_RESULT)
                        saw_result = 1;
                    if (ev.kind == TOKENSIEVE_KIND_STOP) saw_stop = 1;
                }
            }
            tokensieve_finish(p);
            while (tokensieve_next(p, &ev) == TOKENSIEVE_EVENT) n_events++;
            counting = 0;
            CHECK(calls == 0);
            CHECK(saw_call && saw_fail && saw_result && saw_stop);
            if (events_first == 0) events_first = n_events;
            CHECK(n_events > 10);
            if (calls) fprintf(stderr, "chunk size %lu: %ld allocator calls\n", (unsigned long)sizes[k], calls);
        }
    }
    tokensieve_free(p);
    decoder_no_heap();
    printf("nomalloc: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
