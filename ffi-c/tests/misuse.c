/* Misuse of the C API: NULL pointers, calls in the wrong state, bad configs, too little or
 * misaligned memory, dead parsers. Every call must return the documented negative status
 * (or NULL) with a message, and never crash. Prints "N passed, M failed". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tokensieve.h"

static int passed, failed;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (cond) passed++;                                                          \
        else { failed++; fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); } \
    } while (0)

static int has(const char *msg, const char *needle) {
    return msg && strstr(msg, needle) != NULL;
}

/* Aligned caller memory from a static pool (no malloc needed for these). */
static unsigned char pool[1 << 16];
static void *aligned(size_t offset) {
    uintptr_t a = (uintptr_t)tokensieve_state_align();
    uintptr_t p = ((uintptr_t)pool + a - 1) & ~(a - 1);
    return (void *)(p + offset);
}

static int drain_count(tokensieve_parser *p, int32_t *last) {
    tokensieve_event ev;
    int n = 0;
    while ((*last = tokensieve_next(p, &ev)) == TOKENSIEVE_EVENT) n++;
    return n;
}

/* tokensieve_config_default with a dialect: the default has none (TOKENSIEVE_DIALECT_NONE). */
static void config_ax(tokensieve_config *c) {
    tokensieve_config_default(c);
    c->dialect = TOKENSIEVE_DIALECT_ANTHROPIC_XML;
}

static void abi(void) {
    CHECK(tokensieve_abi_version() == TOKENSIEVE_ABI_VERSION);
    CHECK(tokensieve_event_size() == sizeof(tokensieve_event));
    CHECK(tokensieve_state_align() >= 16);
    CHECK((tokensieve_state_align() & (tokensieve_state_align() - 1)) == 0);
    CHECK(tokensieve_dialect_supported(TOKENSIEVE_DIALECT_ANTHROPIC_XML) == 1);
    CHECK(tokensieve_dialect_supported(TOKENSIEVE_DIALECT_PASSTHROUGH) == 1);
    CHECK(tokensieve_dialect_supported(99) == 0);
}

static void null_pointers(void) {
    tokensieve_event ev;
    CHECK(tokensieve_config_default(NULL) == TOKENSIEVE_E_NULL);
    CHECK(tokensieve_new(NULL) == NULL);
    CHECK(has(tokensieve_last_error(NULL), "NULL"));
    CHECK(tokensieve_new_json(NULL, 0) == NULL);
    CHECK(tokensieve_state_size(NULL) == 0);
    CHECK(tokensieve_init(NULL, 100, NULL) == NULL);
    CHECK(tokensieve_feed(NULL, "x", 1) == TOKENSIEVE_E_NULL);
    CHECK(has(tokensieve_last_error(NULL), "tokensieve_feed"));
    CHECK(tokensieve_next(NULL, &ev) == TOKENSIEVE_E_NULL);
    CHECK(tokensieve_finish(NULL) == TOKENSIEVE_E_NULL);
    CHECK(tokensieve_reset(NULL) == TOKENSIEVE_E_NULL);
    CHECK(tokensieve_prefill(NULL, "x", 1) == TOKENSIEVE_E_NULL);
    tokensieve_free(NULL); /* a no-op */
    CHECK(tokensieve_last_error(NULL) != NULL);
}

static void bad_configs(void) {
    tokensieve_config c;
    const char *empty_stop[1] = {""};
    tokensieve_tool tool;

    /* No default dialect: refused everywhere, with the names of the dialects. */
    tokensieve_config_default(&c);
    CHECK(c.dialect == TOKENSIEVE_DIALECT_NONE);
    CHECK(tokensieve_new(&c) == NULL);
    CHECK(has(tokensieve_last_error(NULL), "TOKENSIEVE_DIALECT_NONE"));
    CHECK(has(tokensieve_last_error(NULL), "anthropic-xml"));
    CHECK(has(tokensieve_last_error(NULL), "hermes"));
    CHECK(has(tokensieve_last_error(NULL), "pythonic"));
    CHECK(tokensieve_state_size(&c) == 0);
    CHECK(has(tokensieve_last_error(NULL), "TOKENSIEVE_DIALECT_NONE"));
    CHECK(tokensieve_init(aligned(0), 16384, &c) == NULL);
    CHECK(has(tokensieve_last_error(NULL), "hermes"));
    CHECK(tokensieve_new_json("{}", 0) == NULL);
    CHECK(has(tokensieve_last_error(NULL), "is required, one of"));
    CHECK(has(tokensieve_last_error(NULL), "anthropic-xml"));
    c.dialect = TOKENSIEVE_DIALECT_HERMES;
    CHECK(tokensieve_state_size(&c) > 0);
    config_ax(&c);
    c.dialect = 99;
    CHECK(tokensieve_new(&c) == NULL);
    CHECK(has(tokensieve_last_error(NULL), "dialect"));
    CHECK(tokensieve_state_size(&c) == 0);

    config_ax(&c);
    c.thinking_open = "<t>";
    CHECK(tokensieve_new(&c) == NULL);
    CHECK(has(tokensieve_last_error(NULL), "both"));

    config_ax(&c);
    c.stop_sequences = empty_stop;
    c.stop_sequences_len = 1;
    CHECK(tokensieve_new(&c) == NULL);
    CHECK(has(tokensieve_last_error(NULL), "stop_sequences"));
    c.stop_sequences = NULL;
    CHECK(tokensieve_new(&c) == NULL);
    CHECK(has(tokensieve_last_error(NULL), "NULL"));

    config_ax(&c);
    tool.name = "";
    tool.schema = NULL;
    c.tools = &tool;
    c.tools_len = 1;
    CHECK(tokensieve_new(&c) == NULL);
    CHECK(has(tokensieve_last_error(NULL), "name"));
    tool.name = "run";
    tool.schema = "{\"properties\": ";
    CHECK(tokensieve_new(&c) == NULL);
    CHECK(has(tokensieve_last_error(NULL), "not valid JSON"));
    tool.schema = "[1]";
    CHECK(tokensieve_state_size(&c) == 0);
    CHECK(has(tokensieve_last_error(NULL), "object"));
    tool.schema = "{\"properties\":{\"n\":{\"type\":\"integer\"}}}";
    CHECK(tokensieve_state_size(&c) > 0);

    config_ax(&c);
    c.id_prefix = "\xff\xfe";
    CHECK(tokensieve_new(&c) == NULL);
    CHECK(has(tokensieve_last_error(NULL), "UTF-8"));

    config_ax(&c);
    c.start_in = 7;
    CHECK(tokensieve_new(&c) == NULL);
    c.start_in = 0;
    c.max_call_bytes = 10;
    CHECK(tokensieve_new(&c) == NULL);
    CHECK(has(tokensieve_last_error(NULL), "max_call_bytes"));

    CHECK(tokensieve_new_json("{", 0) == NULL);
    CHECK(has(tokensieve_last_error(NULL), "JSON"));
    CHECK(tokensieve_new_json("{\"dialect\":\"anthropic-xml\",\"colour\":1}", 0) == NULL);
    CHECK(has(tokensieve_last_error(NULL), "colour"));
    if (!tokensieve_dialect_supported(TOKENSIEVE_DIALECT_QWEN3_CODER)) {
        c.max_call_bytes = 0;
        c.dialect = TOKENSIEVE_DIALECT_QWEN3_CODER;
        CHECK(tokensieve_new(&c) == NULL);
        CHECK(has(tokensieve_last_error(NULL), "not supported"));
    }
}

static void caller_memory(void) {
    tokensieve_config c;
    size_t size;
    tokensieve_parser *p;
    config_ax(&c);
    size = tokensieve_state_size(&c);
    CHECK(size > 0 && size % tokensieve_state_align() == 0 && size < sizeof pool / 2);
    CHECK(tokensieve_init(aligned(0), size, NULL) == NULL);
    CHECK(tokensieve_init(aligned(1), size + 64, &c) == NULL);
    CHECK(has(tokensieve_last_error(NULL), "aligned"));
    CHECK(tokensieve_init(aligned(0), size - 1, &c) == NULL);
    CHECK(has(tokensieve_last_error(NULL), "tokensieve_state_size"));
    c.buffer_size = 100;
    CHECK(tokensieve_state_size(&c) == 0);
    CHECK(has(tokensieve_last_error(NULL), "buffer_size"));
    /* Sizes have an upper bound (256 MiB - 1), so state_size never overflows to a huge
       number (it returned ~2^63 for accumulate_size = SIZE_MAX / 2). */
    config_ax(&c);
    c.accumulate = 1;
    c.accumulate_size = (size_t)-1 / 2;
    CHECK(tokensieve_state_size(&c) == 0);
    CHECK(has(tokensieve_last_error(NULL), "accumulate_size"));
    config_ax(&c);
    c.buffer_size = (size_t)1 << 28;
    CHECK(tokensieve_state_size(&c) == 0);
    CHECK(has(tokensieve_last_error(NULL), "maximum"));
    config_ax(&c);
    c.max_call_bytes = 63;
    CHECK(tokensieve_new(&c) == NULL);
    CHECK(has(tokensieve_last_error(NULL), "max_call_bytes"));
    config_ax(&c);
    p = tokensieve_init(aligned(0), size, &c);
    CHECK(p != NULL && (void *)p == aligned(0));
    CHECK(tokensieve_feed(p, "hi", 2) == TOKENSIEVE_OK);
    tokensieve_free(p); /* invalidates; the memory stays ours */
    CHECK(tokensieve_feed(p, "hi", 2) == TOKENSIEVE_E_INVALID);
    CHECK(has(tokensieve_last_error(p), "not a live"));
    tokensieve_free(p); /* freeing an invalidated caller-memory parser is harmless */
    memset(aligned(0), 0, size);
    CHECK(tokensieve_finish((tokensieve_parser *)aligned(0)) == TOKENSIEVE_E_INVALID);
}

static void states(void) {
    tokensieve_config c;
    tokensieve_parser *p;
    tokensieve_event ev;
    int32_t last;
    int n1, n2;
    static const char stream[] = "Hi <thinking>hmm</thinking> there";
    config_ax(&c);
    p = tokensieve_new(&c);
    CHECK(p != NULL);
    CHECK(has(tokensieve_last_error(p), "") && tokensieve_last_error(p)[0] == 0);
    CHECK(tokensieve_next(p, &ev) == TOKENSIEVE_E_STATE);
    CHECK(has(tokensieve_last_error(p), "before tokensieve_feed"));
    CHECK(tokensieve_feed(p, NULL, 5) == TOKENSIEVE_E_NULL);
    CHECK(tokensieve_feed(p, NULL, 0) == TOKENSIEVE_OK);
    CHECK(tokensieve_next(p, &ev) == TOKENSIEVE_NEED_MORE);
    CHECK(tokensieve_feed(p, stream, sizeof stream - 1) == TOKENSIEVE_OK);
    CHECK(tokensieve_feed(p, stream, 2) == TOKENSIEVE_E_STATE);
    CHECK(has(tokensieve_last_error(p), "drained"));
    CHECK(tokensieve_next(p, NULL) == TOKENSIEVE_E_NULL);
    CHECK(tokensieve_prefill(p, "x", 1) == TOKENSIEVE_E_STATE);
    n1 = drain_count(p, &last);
    CHECK(last == TOKENSIEVE_NEED_MORE && n1 > 0);
    CHECK(tokensieve_finish(p) == TOKENSIEVE_OK);
    CHECK(tokensieve_finish(p) == TOKENSIEVE_OK);
    CHECK(tokensieve_feed(p, "more", 4) == TOKENSIEVE_E_STATE);
    CHECK(has(tokensieve_last_error(p), "after tokensieve_finish"));
    n1 += drain_count(p, &last);
    CHECK(last == TOKENSIEVE_DONE);
    CHECK(tokensieve_next(p, &ev) == TOKENSIEVE_DONE);
    /* reset: a new stream gives the same events */
    CHECK(tokensieve_reset(p) == TOKENSIEVE_OK);
    CHECK(tokensieve_next(p, &ev) == TOKENSIEVE_E_STATE);
    CHECK(tokensieve_feed(p, stream, sizeof stream - 1) == TOKENSIEVE_OK);
    n2 = drain_count(p, &last);
    tokensieve_finish(p);
    n2 += drain_count(p, &last);
    CHECK(n1 == n2 && n1 == 9);
    /* reset mid-stream, then prefill is allowed again */
    CHECK(tokensieve_reset(p) == TOKENSIEVE_OK);
    CHECK(tokensieve_feed(p, "abc <thin", 9) == TOKENSIEVE_OK);
    CHECK(tokensieve_reset(p) == TOKENSIEVE_OK);
    CHECK(tokensieve_prefill(p, "<thinking>", 10) == TOKENSIEVE_OK);
    CHECK(tokensieve_prefill(p, NULL, 3) == TOKENSIEVE_E_NULL);
    CHECK(tokensieve_feed(p, "deep", 4) == TOKENSIEVE_OK);
    CHECK(tokensieve_next(p, &ev) == TOKENSIEVE_EVENT && ev.kind == TOKENSIEVE_KIND_BLOCK_START &&
          ev.block_type == TOKENSIEVE_BLOCK_THINKING && ev.index == 0);
    CHECK(tokensieve_next(p, &ev) == TOKENSIEVE_EVENT && ev.kind == TOKENSIEVE_KIND_CHUNK &&
          !(ev.flags & TOKENSIEVE_FLAG_VISIBLE));
    tokensieve_free(p);
}

static void stop_and_fields(void) {
    tokensieve_config c;
    tokensieve_parser *p;
    tokensieve_event ev;
    int32_t rc;
    const char *stop_list[1] = {"\nHuman:"};
    static const char s1[] = "Sure.\nHum";
    static const char s2[] = "an: more text";
    int saw_stop = 0;
    config_ax(&c);
    c.stop_sequences = stop_list;
    c.stop_sequences_len = 1;
    c.accumulate = 1;
    p = tokensieve_new(&c);
    CHECK(p != NULL);
    tokensieve_feed(p, s1, sizeof s1 - 1);
    while ((rc = tokensieve_next(p, &ev)) == TOKENSIEVE_EVENT) {
        CHECK(ev.kind == TOKENSIEVE_KIND_BLOCK_START || (ev.text.len == 5 && memcmp(ev.text.ptr, "Sure.", 5) == 0));
        /* a direct chunk points into the caller's input */
        if (ev.kind == TOKENSIEVE_KIND_CHUNK) CHECK(ev.text.ptr == s1);
    }
    CHECK(rc == TOKENSIEVE_NEED_MORE);
    tokensieve_feed(p, s2, sizeof s2 - 1);
    while ((rc = tokensieve_next(p, &ev)) == TOKENSIEVE_EVENT) {
        if (ev.kind == TOKENSIEVE_KIND_BLOCK_COMPLETE)
            CHECK(ev.content.len == 5 && memcmp(ev.content.ptr, "Sure.", 5) == 0 && ev.input.ptr == NULL &&
                  ev.tool_name.ptr == NULL && ev.error_code == 0);
        if (ev.kind == TOKENSIEVE_KIND_STOP) {
            saw_stop = 1;
            CHECK(ev.text.len == 7 && memcmp(ev.text.ptr, "\nHuman:", 7) == 0);
        }
    }
    CHECK(saw_stop && rc == TOKENSIEVE_DONE);
    /* after a stop the stream is done: more input is accepted and ignored */
    CHECK(tokensieve_feed(p, "x", 1) == TOKENSIEVE_OK);
    CHECK(tokensieve_next(p, &ev) == TOKENSIEVE_DONE);
    CHECK(tokensieve_finish(p) == TOKENSIEVE_OK);
    CHECK(tokensieve_next(p, &ev) == TOKENSIEVE_DONE);
    tokensieve_free(p);
}

static void accumulation_limits(void) {
    tokensieve_config c;
    tokensieve_parser *p;
    tokensieve_event ev;
    tokensieve_tool tool;
    size_t size;
    int32_t rc;
    int complete = 0, typed = 0;
    static const char text[] = "0123456789abcdefghij <function_calls><invoke name=\"count\">"
                               "<parameter name=\"n\">42</parameter></invoke></function_calls>";
    config_ax(&c);
    tool.name = "count";
    tool.schema = "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}}}";
    c.tools = &tool;
    c.tools_len = 1;
    c.accumulate = 1;
    c.accumulate_size = 16;
    size = tokensieve_state_size(&c);
    p = tokensieve_init(aligned(0), size, &c);
    CHECK(p != NULL);
    tokensieve_feed(p, text, sizeof text - 1);
    tokensieve_finish(p);
    while ((rc = tokensieve_next(p, &ev)) == TOKENSIEVE_EVENT) {
        if (ev.kind != TOKENSIEVE_KIND_BLOCK_COMPLETE) continue;
        complete++;
        if (ev.block_type == TOKENSIEVE_BLOCK_TEXT)
            CHECK((ev.flags & TOKENSIEVE_FLAG_ACCUMULATED_TRUNCATED) && ev.content.len <= 16);
        if (ev.block_type == TOKENSIEVE_BLOCK_TOOL_CALL) {
            CHECK(!(ev.flags & TOKENSIEVE_FLAG_ACCUMULATED_TRUNCATED));
            typed = ev.input.len == 8 && memcmp(ev.input.ptr, "{\"n\":42}", 8) == 0;
            CHECK(ev.tool_name.len == 5 && ev.tool_id.len == 6 && memcmp(ev.tool_id.ptr, "call_0", 6) == 0);
        }
    }
    CHECK(rc == TOKENSIEVE_DONE && complete == 2 && typed);
    tokensieve_free(p);
}

/* The provider-stream decoder: creation errors, NULLs, states, and the provider fields. */
static tokensieve_decoder *decoder_json(const char *json, int32_t *rc) {
    tokensieve_decoder *d = (tokensieve_decoder *)&d; /* must be overwritten */
    *rc = tokensieve_decoder_new_json(json, strlen(json), 1, &d);
    return d;
}

static int32_t decoder_drain(tokensieve_decoder *d, tokensieve_event *evs, int cap, int *n) {
    int32_t rc;
    tokensieve_event ev;
    *n = 0;
    while ((rc = tokensieve_decoder_next(d, &ev)) == TOKENSIEVE_EVENT) {
        if (*n < cap) evs[*n] = ev;
        (*n)++;
    }
    return rc;
}

static int str_is(tokensieve_str s, const char *want) {
    return s.ptr && s.len == strlen(want) && memcmp(s.ptr, want, s.len) == 0;
}

static void decoder_creation(void) {
    static const struct {
        const char *json, *needle;
    } bad[] = {
        {"{", "JSON"},
        {"[]", "object"},
        {"{}", "provider"},
        {"{\"provider\": \"openai\"}", "provider"},
        {"{\"provider\": 7}", "provider"},
        {"{\"provider\": \"openai-chat\", \"dialect\": \"hermes\"}", "text_dialect"},
        {"{\"provider\": \"openai-chat\", \"text_dialect\": \"nope\"}", "text_dialect"},
        {"{\"provider\": \"openai-chat\", \"colour\": 1}", "colour"},
        {"{\"provider\": \"openai-chat\", \"max_frame_bytes\": -1}", "max_frame_bytes"},
        {"{\"provider\": \"openai-chat\", \"id_prefix\": 3}", "id_prefix"},
    };
    size_t k;
    int32_t rc;
    tokensieve_decoder *d;
    CHECK(tokensieve_provider_supported(TOKENSIEVE_PROVIDER_OPENAI_CHAT) == 1);
    CHECK(tokensieve_provider_supported(99) == 0);
    CHECK(tokensieve_decoder_new_json("{}", 2, 1, NULL) == TOKENSIEVE_E_NULL);
    d = (tokensieve_decoder *)&d;
    CHECK(tokensieve_decoder_new_json(NULL, 3, 1, &d) == TOKENSIEVE_E_NULL);
    CHECK(d == NULL);
    for (k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        d = decoder_json(bad[k].json, &rc);
        CHECK(rc == TOKENSIEVE_E_CONFIG && d == NULL);
        if (!has(tokensieve_decoder_last_error(NULL), bad[k].needle))
            fprintf(stderr, "  config %s: %s\n", bad[k].json, tokensieve_decoder_last_error(NULL));
        CHECK(has(tokensieve_decoder_last_error(NULL), bad[k].needle));
    }
    /* A provider this build does not decode (if there is one). */
    for (k = 0; k < 6; k++) {
        static const char *names[] = {"openai-chat", "openai-responses", "anthropic", "gemini",
                                      "bedrock", "ollama"};
        char json[128];
        if (tokensieve_provider_supported((uint32_t)k)) continue;
        snprintf(json, sizeof json, "{\"provider\": \"%s\"}", names[k]);
        d = decoder_json(json, &rc);
        CHECK(rc == TOKENSIEVE_E_CONFIG && d == NULL);
        CHECK(has(tokensieve_decoder_last_error(NULL), "provider"));
    }
    /* The length is honoured: a config cut short is not read past. */
    d = (tokensieve_decoder *)&d;
    CHECK(tokensieve_decoder_new_json("{\"provider\": \"openai-chat\"}xyz", 27, 1, &d) == TOKENSIEVE_OK);
    CHECK(d != NULL);
    tokensieve_decoder_free(d);
    tokensieve_decoder_free(NULL);
}

static void decoder_states(void) {
    static const char body[] =
        "data: {\"id\":\"r1\",\"model\":\"m\",\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n"
        "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
        "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2}}\n\n"
        "data: [DONE]\n\n";
    tokensieve_event evs[16], ev;
    int32_t rc;
    int n;
    tokensieve_decoder *d = decoder_json("{\"provider\": \"openai-chat\"}", &rc);
    CHECK(rc == TOKENSIEVE_OK && d != NULL);
    if (!d) return;
    CHECK(tokensieve_decoder_feed(NULL, "x", 1) == TOKENSIEVE_E_NULL);
    CHECK(has(tokensieve_decoder_last_error(NULL), "decoder is NULL"));
    CHECK(tokensieve_decoder_next(NULL, &ev) == TOKENSIEVE_E_NULL);
    CHECK(tokensieve_decoder_finish(NULL) == TOKENSIEVE_E_NULL);
    CHECK(tokensieve_decoder_reset(NULL) == TOKENSIEVE_E_NULL);
    CHECK(tokensieve_decoder_next(d, &ev) == TOKENSIEVE_E_STATE);
    CHECK(has(tokensieve_decoder_last_error(d), "before tokensieve_decoder_feed"));
    CHECK(tokensieve_decoder_feed(d, NULL, 3) == TOKENSIEVE_E_NULL);
    CHECK(tokensieve_decoder_feed(d, NULL, 0) == TOKENSIEVE_OK);
    CHECK(tokensieve_decoder_next(d, NULL) == TOKENSIEVE_E_NULL);
    CHECK(tokensieve_decoder_feed(d, body, sizeof body - 1) == TOKENSIEVE_OK);
    CHECK(tokensieve_decoder_feed(d, body, sizeof body - 1) == TOKENSIEVE_E_STATE);
    CHECK(has(tokensieve_decoder_last_error(d), "drained"));
    rc = decoder_drain(d, evs, 16, &n);
    CHECK(rc == TOKENSIEVE_NEED_MORE);
    CHECK(tokensieve_decoder_finish(d) == TOKENSIEVE_OK);
    CHECK(tokensieve_decoder_finish(d) == TOKENSIEVE_OK);
    CHECK(tokensieve_decoder_feed(d, "x", 1) == TOKENSIEVE_E_STATE);
    {
        int m, i, finishes = 0;
        tokensieve_event more[16];
        rc = decoder_drain(d, more, 16, &m);
        CHECK(rc == TOKENSIEVE_DONE);
        CHECK(tokensieve_decoder_next(d, &ev) == TOKENSIEVE_DONE);
        for (i = 0; i < m && n + i < 16; i++) evs[n + i] = more[i];
        n += m;
        /* block_start, chunk "Hi", block_complete (content "Hi"), finish. */
        CHECK(n == 4);
        CHECK(evs[0].kind == TOKENSIEVE_KIND_BLOCK_START && evs[0].choice == 0);
        CHECK(evs[1].kind == TOKENSIEVE_KIND_CHUNK && (evs[1].flags & TOKENSIEVE_FLAG_VISIBLE));
        CHECK(evs[2].kind == TOKENSIEVE_KIND_BLOCK_COMPLETE);
        for (i = 0; i < n && i < 16; i++) {
            if (evs[i].kind != TOKENSIEVE_KIND_FINISH) continue;
            finishes++;
            CHECK(evs[i].finish_reason == TOKENSIEVE_FINISH_STOP);
            CHECK(str_is(evs[i].raw_reason, "stop"));
            CHECK(str_is(evs[i].response_id, "r1"));
            CHECK(str_is(evs[i].model, "m"));
            CHECK(evs[i].flags & TOKENSIEVE_FLAG_USAGE);
            CHECK(evs[i].usage_present ==
                  (TOKENSIEVE_USAGE_INPUT_TOKENS | TOKENSIEVE_USAGE_OUTPUT_TOKENS));
            CHECK(evs[i].input_tokens == 5 && evs[i].output_tokens == 2);
            CHECK(evs[i].error_source == TOKENSIEVE_ERROR_SOURCE_NONE);
        }
        CHECK(finishes == 1);
    }
    /* reset: a new body on the same decoder. */
    CHECK(tokensieve_decoder_reset(d) == TOKENSIEVE_OK);
    CHECK(tokensieve_decoder_next(d, &ev) == TOKENSIEVE_E_STATE);
    {
        static const char err[] =
            "data: {\"error\":{\"message\":\"Rate limit reached\",\"code\":\"rate_limit_exceeded\"}}\n\n";
        int i, errors = 0;
        CHECK(tokensieve_decoder_feed(d, err, sizeof err - 1) == TOKENSIEVE_OK);
        rc = decoder_drain(d, evs, 16, &n);
        CHECK(rc == TOKENSIEVE_NEED_MORE);
        CHECK(tokensieve_decoder_finish(d) == TOKENSIEVE_OK);
        for (i = 0; i < n && i < 16; i++) {
            if (evs[i].kind != TOKENSIEVE_KIND_ERROR) continue;
            errors++;
            CHECK(evs[i].error_source == TOKENSIEVE_ERROR_SOURCE_PROVIDER);
            CHECK(str_is(evs[i].code, "rate_limit_exceeded"));
            CHECK(str_is(evs[i].message, "Rate limit reached"));
        }
        CHECK(errors == 1);
        CHECK(decoder_drain(d, evs, 16, &n) == TOKENSIEVE_DONE);
    }
    tokensieve_decoder_free(d);
}

/* text_dialect: a tool call the server passed through as content text. */
static void decoder_text_dialect(void) {
    static const char body[] =
        "data: {\"choices\":[{\"delta\":{\"content\":\"ok <tool_call>{\\\"name\\\": "
        "\\\"f\\\", \\\"arguments\\\": {\\\"a\\\": 1}}</tool_call>\"}}]}\n\n"
        "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
    tokensieve_event ev;
    int32_t rc;
    int calls = 0, finishes = 0;
    tokensieve_decoder *d = decoder_json(
        "{\"provider\": \"openai-chat\", \"text_dialect\": \"hermes\", \"id_prefix\": \"t_\"}", &rc);
    CHECK(rc == TOKENSIEVE_OK && d != NULL);
    if (!d) return;
    CHECK(tokensieve_decoder_feed(d, body, sizeof body - 1) == TOKENSIEVE_OK);
    CHECK(tokensieve_decoder_finish(d) == TOKENSIEVE_OK);
    while ((rc = tokensieve_decoder_next(d, &ev)) == TOKENSIEVE_EVENT) {
        if (ev.kind == TOKENSIEVE_KIND_BLOCK_COMPLETE && ev.block_type == TOKENSIEVE_BLOCK_TOOL_CALL) {
            calls++;
            CHECK(str_is(ev.tool_name, "f"));
            CHECK(str_is(ev.tool_id, "t_0"));
            CHECK(str_is(ev.input, "{\"a\":1}"));
        }
        if (ev.kind == TOKENSIEVE_KIND_FINISH) finishes++;
    }
    CHECK(rc == TOKENSIEVE_DONE);
    CHECK(calls == 1 && finishes == 1);
    tokensieve_decoder_free(d);
}

/* The struct-configured decoders: heap (tokensieve_decoder_new) and caller memory. */
static void decoder_struct(void) {
    tokensieve_decoder_config dc;
    tokensieve_decoder *d;
    tokensieve_event ev;
    size_t size;
    int32_t rc;
    uint32_t k;
    CHECK(tokensieve_decoder_config_default(NULL) == TOKENSIEVE_E_NULL);
    CHECK(tokensieve_decoder_config_default(&dc) == TOKENSIEVE_OK);
    CHECK(dc.provider == TOKENSIEVE_PROVIDER_OPENAI_CHAT);
    CHECK(dc.text.dialect == TOKENSIEVE_DIALECT_PASSTHROUGH);
    CHECK(tokensieve_decoder_state_size(NULL) == 0);
    CHECK(has(tokensieve_decoder_last_error(NULL), "NULL"));
    CHECK(tokensieve_decoder_new(&dc, NULL) == TOKENSIEVE_E_NULL);
    d = (tokensieve_decoder *)&d;
    CHECK(tokensieve_decoder_new(NULL, &d) == TOKENSIEVE_E_NULL && d == NULL);
    CHECK(tokensieve_decoder_init(aligned(0), 100, &dc, NULL) == TOKENSIEVE_E_NULL);
    d = (tokensieve_decoder *)&d;
    CHECK(tokensieve_decoder_init(NULL, 100, &dc, &d) == TOKENSIEVE_E_NULL && d == NULL);
    CHECK(tokensieve_decoder_init(aligned(0), 100, NULL, &d) == TOKENSIEVE_E_NULL);

    /* Bad values. */
    dc.provider = 99;
    CHECK(tokensieve_decoder_state_size(&dc) == 0);
    CHECK(has(tokensieve_decoder_last_error(NULL), "provider"));
    CHECK(tokensieve_decoder_new(&dc, &d) == TOKENSIEVE_E_CONFIG && d == NULL);
    for (k = 0; k < 5; k++) {
        if (tokensieve_provider_supported(k)) continue;
        dc.provider = k;
        CHECK(tokensieve_decoder_new(&dc, &d) == TOKENSIEVE_E_CONFIG && d == NULL);
        CHECK(has(tokensieve_decoder_last_error(NULL), "not decoded"));
    }
    tokensieve_decoder_config_default(&dc);
    dc.text.buffer_size = 639;
    CHECK(tokensieve_decoder_state_size(&dc) == 0);
    CHECK(has(tokensieve_decoder_last_error(NULL), "buffer_size"));
    dc.text.buffer_size = 640;
    CHECK(tokensieve_decoder_state_size(&dc) > 0);
    dc.text.dialect = TOKENSIEVE_DIALECT_HERMES;
    CHECK(tokensieve_decoder_state_size(&dc) == 0); /* a text dialect takes 1028 more */
    dc.text.buffer_size = 640 + 1028;
    CHECK(tokensieve_decoder_state_size(&dc) > 0);
    dc.text.dialect = 77;
    CHECK(tokensieve_decoder_state_size(&dc) == 0);
    CHECK(has(tokensieve_decoder_last_error(NULL), "dialect"));

    /* Caller memory: too small, misaligned, then right. */
    tokensieve_decoder_config_default(&dc);
    size = tokensieve_decoder_state_size(&dc);
    CHECK(size > 0 && size < sizeof pool - 256);
    CHECK(tokensieve_decoder_init(aligned(0), size - 1, &dc, &d) == TOKENSIEVE_E_MEMORY && d == NULL);
    CHECK(has(tokensieve_decoder_last_error(NULL), "tokensieve_decoder_state_size"));
    CHECK(tokensieve_decoder_init(aligned(1), size, &dc, &d) == TOKENSIEVE_E_MEMORY && d == NULL);
    CHECK(has(tokensieve_decoder_last_error(NULL), "aligned"));
    rc = tokensieve_decoder_init(aligned(0), size, &dc, &d);
    CHECK(rc == TOKENSIEVE_OK && d == (tokensieve_decoder *)aligned(0));
    if (rc != TOKENSIEVE_OK) return;
    CHECK(tokensieve_decoder_feed(d, "data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n\n", 45) ==
          TOKENSIEVE_OK);
    while ((rc = tokensieve_decoder_next(d, &ev)) == TOKENSIEVE_EVENT) {}
    CHECK(rc == TOKENSIEVE_NEED_MORE);
    tokensieve_decoder_free(d);
    CHECK(tokensieve_decoder_feed(d, "x", 1) == TOKENSIEVE_E_INVALID);
    CHECK(has(tokensieve_decoder_last_error(NULL), "not a live tokensieve decoder"));
    CHECK(tokensieve_decoder_reset(d) == TOKENSIEVE_E_INVALID);
    tokensieve_decoder_free(d); /* invalidated: a no-op with a message */

    /* Heap from the struct. */
    tokensieve_decoder_config_default(&dc);
    dc.text.id_prefix = "x_";
    rc = tokensieve_decoder_new(&dc, &d);
    CHECK(rc == TOKENSIEVE_OK && d != NULL);
    tokensieve_decoder_free(d);
}

/* A handle of one kind given to the other kind's functions is refused by the magic at its
 * start, never read past its end (issue 25, R11: both handles keep the magic at offset 0;
 * valgrind over this file checks the "never read past"). */
static void handle_confusion(void) {
    tokensieve_config pc;
    tokensieve_parser *p;
    tokensieve_decoder *d = NULL;
    tokensieve_event ev;
    tokensieve_config_default(&pc);
    pc.dialect = TOKENSIEVE_DIALECT_ANTHROPIC_XML;
    p = tokensieve_new(&pc);
    CHECK(p != NULL);
    CHECK(tokensieve_decoder_next((tokensieve_decoder *)p, &ev) == TOKENSIEVE_E_INVALID);
    CHECK(tokensieve_decoder_feed((tokensieve_decoder *)p, "x", 1) == TOKENSIEVE_E_INVALID);
    tokensieve_decoder_free((tokensieve_decoder *)p);
    CHECK(tokensieve_feed(p, "hi", 2) == TOKENSIEVE_OK);
    CHECK(tokensieve_decoder_new_json("{\"provider\":\"anthropic\"}", 24, 0, &d) == TOKENSIEVE_OK);
    CHECK(tokensieve_next((tokensieve_parser *)d, &ev) == TOKENSIEVE_E_INVALID);
    tokensieve_free((tokensieve_parser *)d);
    CHECK(tokensieve_decoder_feed(d, "x", 1) == TOKENSIEVE_OK);
    tokensieve_decoder_free(d);
    tokensieve_free(p);
}

/* tokensieve_next_batch / tokensieve_feed_batch: the same events as tokensieve_next (the
 * visible text and the tool call's name, id and input chunks, byte for byte), with buffers
 * too small for everything at once; an event that does not fit waits (E_BUFFER, feed and
 * finish refused meanwhile); NULLs refused. */
static const char batch_input[] =
    "Hello, a text long enough to need room.<tool_call>{\"name\": \"get\", \"arguments\": {\"q\": \"x\"}}</tool_call> Bye.";

/* The events of the whole input through tokensieve_next, as "kind:text|" pieces. */
static size_t by_next(char *out, size_t cap) {
    tokensieve_parser *p = tokensieve_new_json("{\"dialect\": \"hermes\"}", 0);
    tokensieve_event ev;
    size_t len = 0;
    int pass;
    for (pass = 0; pass < 2; pass++) {
        if (pass == 0) tokensieve_feed(p, batch_input, sizeof batch_input - 1);
        else tokensieve_finish(p);
        while (tokensieve_next(p, &ev) == TOKENSIEVE_EVENT) {
            len += (size_t)snprintf(out + len, cap - len, "%u:%.*s|", ev.kind, (int)ev.text.len,
                                    ev.text.ptr ? ev.text.ptr : "");
        }
    }
    tokensieve_free(p);
    return len;
}

/* Appends the records of one batch call as "kind:text|" pieces. */
static size_t append_records(const tokensieve_batch *b, char *out, size_t len, size_t cap) {
    size_t i, at = 0;
    for (i = 0; i < b->n_records; i++) {
        const tokensieve_record *r = &b->records[i];
        len += (size_t)snprintf(out + len, cap - len, "%u:%.*s|", r->head & 15u, (int)r->text_len,
                                (const char *)b->bytes + at);
        at += (size_t)r->text_len + r->name_len + r->id_len + r->rest_len;
    }
    CHECK(at == b->n_bytes);
    return len;
}

static void batches(void) {
    static char want[4096], got[4096];
    size_t want_len = by_next(want, sizeof want), got_len = 0;
    tokensieve_record recs[2];
    uint8_t small[8], big[256];
    tokensieve_batch b;
    tokensieve_parser *p = tokensieve_new_json("{\"dialect\": \"hermes\"}", 0);
    int32_t rc;
    int pass, guard;
    CHECK(p != NULL);
    /* Two records, 8 bytes: the text chunk needs more. */
    b.records = recs; b.records_cap = 2; b.bytes = small; b.bytes_cap = sizeof small;
    b.n_records = 99; b.n_bytes = 99;
    rc = tokensieve_feed_batch(p, batch_input, sizeof batch_input - 1, &b);
    CHECK(rc == TOKENSIEVE_EVENT);              /* the block start fit; the chunk did not */
    got_len = append_records(&b, got, got_len, sizeof got);
    rc = tokensieve_next_batch(p, &b);
    CHECK(rc == TOKENSIEVE_E_BUFFER && b.n_records == 1 && b.n_bytes > sizeof small);
    CHECK(has(tokensieve_last_error(p), "bytes"));
    CHECK(tokensieve_feed(p, "x", 1) == TOKENSIEVE_E_STATE);     /* an event waits */
    CHECK(tokensieve_finish(p) == TOKENSIEVE_E_STATE);
    b.bytes = big; b.bytes_cap = sizeof big;
    for (pass = 0; pass < 2; pass++) {
        if (pass == 1) CHECK(tokensieve_finish(p) == TOKENSIEVE_OK);
        guard = 0;
        do {
            rc = tokensieve_next_batch(p, &b);
            CHECK(rc >= 0);
            got_len = append_records(&b, got, got_len, sizeof got);
        } while (rc == TOKENSIEVE_EVENT && ++guard < 100);
        CHECK(rc == (pass == 0 ? TOKENSIEVE_NEED_MORE : TOKENSIEVE_DONE));
    }
    CHECK(got_len == want_len && memcmp(got, want, want_len) == 0);
    if (got_len != want_len || memcmp(got, want, want_len) != 0)
        fprintf(stderr, "batch: %.*s\nnext:  %.*s\n", (int)got_len, got, (int)want_len, want);
    CHECK(tokensieve_next_batch(p, NULL) == TOKENSIEVE_E_NULL);
    b.bytes = NULL;
    CHECK(tokensieve_next_batch(p, &b) == TOKENSIEVE_E_NULL);
    CHECK(tokensieve_next_batch(NULL, &b) == TOKENSIEVE_E_NULL);
    CHECK(tokensieve_feed_batch(NULL, "x", 1, &b) == TOKENSIEVE_E_NULL);
    CHECK(tokensieve_decoder_next_batch(NULL, &b) == TOKENSIEVE_E_NULL);
    tokensieve_free(p);
}

int main(void) {
    abi();
    handle_confusion();
    null_pointers();
    bad_configs();
    caller_memory();
    states();
    stop_and_fields();
    accumulation_limits();
    decoder_creation();
    decoder_states();
    decoder_text_dialect();
    decoder_struct();
    batches();
    printf("misuse: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
