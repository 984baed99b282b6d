/* The writers through the C API: tool calls (JSON config and struct config), tool results,
 * stop sequences, dialect names. Round trip: calls written by
 * tokensieve_format_tool_calls_json are parsed back by a parser of the same config into
 * the same calls. The caller-buffer protocol (TOKENSIEVE_E_BUFFER with the size needed),
 * and every error: a status and a message that says what was wrong, never a crash.
 * Prints "N passed, M failed". */
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

static int same(const char *buf, size_t n, const char *want) {
    return n == strlen(want) && memcmp(buf, want, n) == 0;
}

static const char CALLS[] =
    "[{\"name\": \"get_weather\", \"id\": \"call_0\", \"input\": {\"city\": \"Paris\", "
    "\"n\": 1.0e5, \"big\": 123456789012345678901234567890}},"
    " {\"name\": \"search\", \"input\": {\"q\": \"a </tool_call> b\", \"tags\": [\"x\", null]}}]";

/* Parses `text` with a parser of `config_json` and checks that the completed tool calls
 * are `names` with `inputs` (compact JSON), in order. */
static void parses_back(const char *config_json, const char *text, size_t len,
                        const char *const *names, const char *const *inputs, size_t n) {
    tokensieve_parser *p = tokensieve_new_json(config_json, 1);
    tokensieve_event ev;
    size_t seen = 0;
    int32_t rc;
    CHECK(p != NULL);
    if (!p) return;
    CHECK(tokensieve_feed(p, text, len) == TOKENSIEVE_OK);
    while ((rc = tokensieve_next(p, &ev)) == TOKENSIEVE_EVENT) {
        if (ev.kind == TOKENSIEVE_KIND_BLOCK_COMPLETE && ev.block_type == TOKENSIEVE_BLOCK_TOOL_CALL) {
            CHECK(seen < n);
            if (seen < n) {
                CHECK(ev.error_code == TOKENSIEVE_CALL_OK);
                CHECK(same(ev.tool_name.ptr, ev.tool_name.len, names[seen]));
                CHECK(same(ev.input.ptr, ev.input.len, inputs[seen]));
                if (!same(ev.input.ptr, ev.input.len, inputs[seen]))
                    fprintf(stderr, "  %s: %.*s\n", config_json, (int)ev.input.len, ev.input.ptr);
            }
            seen++;
        }
    }
    CHECK(rc == TOKENSIEVE_NEED_MORE);
    CHECK(tokensieve_finish(p) == TOKENSIEVE_OK);
    while ((rc = tokensieve_next(p, &ev)) == TOKENSIEVE_EVENT) {
        if (ev.kind == TOKENSIEVE_KIND_BLOCK_COMPLETE && ev.block_type == TOKENSIEVE_BLOCK_TOOL_CALL)
            seen++;
    }
    CHECK(rc == TOKENSIEVE_DONE);
    CHECK(seen == n);
    tokensieve_free(p);
}

static void round_trip(void) {
    static const char *const configs[] = {
        "{\"dialect\": \"hermes\"}",
        "{\"dialect\": \"kimi-k2\"}",
        "{\"dialect\": \"mistral\"}",
        "{\"dialect\": \"harmony\"}",
        "{\"dialect\": \"pythonic\"}",
        "{\"dialect\": \"qwen3-coder\", \"tools\": [{\"name\": \"get_weather\", \"schema\": "
        "{\"type\": \"object\", \"properties\": {\"city\": {\"type\": \"string\"}, "
        "\"n\": {\"type\": \"number\"}, \"big\": {\"type\": \"integer\"}}}}]}",
        "{\"dialect\": \"anthropic-xml\", \"tools\": [{\"name\": \"get_weather\", \"schema\": "
        "{\"type\": \"object\", \"properties\": {\"big\": {\"type\": \"integer\"}}}}]}",
        /* A host-defined dialect: a description instead of a name. */
        "{\"dialect\": {\"shape\": \"json-call\", \"wrapper\": [\"<call>\", \"</call>\"]}}",
    };
    static const char *const names[] = {"get_weather", "search"};
    static const char *const inputs[] = {
        "{\"city\":\"Paris\",\"n\":1.0e5,\"big\":123456789012345678901234567890}",
        "{\"q\":\"a </tool_call> b\",\"tags\":[\"x\",null]}",
    };
    /* qwen3-coder without a schema for `q`: a string holding a closer is written as a JSON
     * string with its `<` escaped (the guard), which the parser keeps as written: the same
     * value. */
    static const char *const escaped[] = {
        "{\"city\":\"Paris\",\"n\":1.0e5,\"big\":123456789012345678901234567890}",
        "{\"q\":\"a \\u003c/tool_call> b\",\"tags\":[\"x\",null]}",
    };
    size_t i;
    for (i = 0; i < sizeof configs / sizeof configs[0]; i++) {
        char buf[2048];
        size_t n = 0;
        int32_t rc = tokensieve_format_tool_calls_json(configs[i], CALLS, strlen(CALLS), buf,
                                                       sizeof buf, &n);
        CHECK(rc == TOKENSIEVE_OK);
        if (rc != TOKENSIEVE_OK) {
            fprintf(stderr, "  %s: %s\n", configs[i], tokensieve_last_error(NULL));
            continue;
        }
        parses_back(configs[i], buf, n, names, i == 5 ? escaped : inputs, 2);
    }
}

static void exact_text_and_buffer(void) {
    const char *calls = "[{\"name\": \"f\", \"input\": {\"a\": 1.50}}]";
    const char *want = "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1.50}}\n</tool_call>";
    char small[8], buf[128];
    size_t n = 0;
    tokensieve_config c;
    /* Size query: no buffer at all. */
    CHECK(tokensieve_format_tool_calls_json("{\"dialect\":\"hermes\"}", calls, strlen(calls), NULL,
                                            0, &n) == TOKENSIEVE_E_BUFFER);
    CHECK(n == strlen(want));
    CHECK(has(tokensieve_last_error(NULL), "call again with a larger buffer"));
    /* Too small: nothing written. */
    memset(small, 'z', sizeof small);
    n = 0;
    CHECK(tokensieve_format_tool_calls_json("{\"dialect\":\"hermes\"}", calls, strlen(calls), small,
                                            sizeof small, &n) == TOKENSIEVE_E_BUFFER);
    CHECK(n == strlen(want));
    CHECK(small[0] == 'z');
    /* Exactly the size needed. */
    CHECK(tokensieve_format_tool_calls_json("{\"dialect\":\"hermes\"}", calls, strlen(calls), buf,
                                            strlen(want), &n) == TOKENSIEVE_OK);
    CHECK(same(buf, n, want));
    /* The struct config: a preset by code, tools typing the XML formats' values. */
    tokensieve_config_default(&c);
    c.dialect = TOKENSIEVE_DIALECT_HERMES;
    CHECK(tokensieve_format_tool_calls(&c, calls, strlen(calls), buf, sizeof buf, &n) == TOKENSIEVE_OK);
    CHECK(same(buf, n, want));
    {
        tokensieve_tool tool;
        tool.name = "f";
        tool.schema = "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}}}";
        c.dialect = TOKENSIEVE_DIALECT_QWEN3_CODER;
        c.tools = &tool;
        c.tools_len = 1;
        CHECK(tokensieve_format_tool_calls(&c, "[{\"name\":\"f\",\"input\":{\"a\":\"42\"}}]", 33, buf,
                                           sizeof buf, &n) == TOKENSIEVE_OK);
        CHECK(same(buf, n, "<tool_call>\n<function=f>\n<parameter=a>\n42\n</parameter>\n</function>\n</tool_call>"));
        c.tools = NULL;
        c.tools_len = 0;
    }
    /* No calls: no text, OK even without a buffer. */
    CHECK(tokensieve_format_tool_calls_json("{\"dialect\":\"hermes\"}", "[]", 2, NULL, 0, &n) == TOKENSIEVE_OK);
    CHECK(n == 0);
}

static void results(void) {
    const char *r = "[{\"tool_use_id\": \"functions.get_weather:0\", \"name\": \"get_weather\", "
                    "\"content\": \"18\xc2\xb0" "C\"}, {\"content\": \"ENOENT\", \"is_error\": true}]";
    char buf[512];
    size_t n = 0;
    CHECK(tokensieve_format_tool_results(TOKENSIEVE_DIALECT_KIMI_K2, r, strlen(r), buf, sizeof buf,
                                         &n) == TOKENSIEVE_OK);
    CHECK(same(buf, n,
               "<|im_system|>get_weather<|im_middle|>## Return of functions.get_weather:0\n18\xc2\xb0"
               "C<|im_end|><|im_system|>tool<|im_middle|>ENOENT<|im_end|>"));
    CHECK(tokensieve_format_tool_results(TOKENSIEVE_DIALECT_HERMES, r, strlen(r), buf, 4, &n) ==
          TOKENSIEVE_E_BUFFER);
    CHECK(n == strlen("<tool_response>\n18\xc2\xb0" "C\n</tool_response>\n<tool_response>\nENOENT\n</tool_response>"));
    /* A result block parses back whole, a closer inside it included. */
    {
        const char *inside = "[{\"content\": \"a </tool_response> b\"}]";
        tokensieve_parser *p = tokensieve_new_json("{\"dialect\":\"hermes\"}", 1);
        tokensieve_event ev;
        int results_seen = 0;
        CHECK(tokensieve_format_tool_results(TOKENSIEVE_DIALECT_HERMES, inside, strlen(inside), buf,
                                             sizeof buf, &n) == TOKENSIEVE_OK);
        CHECK(tokensieve_feed(p, buf, n) == TOKENSIEVE_OK);
        for (;;) {
            int32_t rc = tokensieve_next(p, &ev);
            if (rc == TOKENSIEVE_NEED_MORE) { tokensieve_finish(p); continue; }
            if (rc != TOKENSIEVE_EVENT) break;
            if (ev.kind == TOKENSIEVE_KIND_BLOCK_COMPLETE && ev.block_type == TOKENSIEVE_BLOCK_TOOL_RESULT)
                results_seen++;
        }
        tokensieve_free(p);
        CHECK(results_seen == 1);
    }
}

static void stops(void) {
    tokensieve_str s[8];
    size_t n = 99;
    int32_t code;
    CHECK(tokensieve_stop_sequences(TOKENSIEVE_DIALECT_HARMONY, s, 8, &n) == TOKENSIEVE_OK);
    CHECK(n == 2);
    CHECK(same(s[0].ptr, s[0].len, "<|return|>"));
    CHECK(same(s[1].ptr, s[1].len, "<|call|>"));
    CHECK(tokensieve_stop_sequences(TOKENSIEVE_DIALECT_ANTHROPIC_XML, s, 1, &n) == TOKENSIEVE_E_BUFFER);
    CHECK(n == 2);
    CHECK(tokensieve_stop_sequences(TOKENSIEVE_DIALECT_ANTHROPIC_XML, NULL, 0, &n) == TOKENSIEVE_E_BUFFER);
    CHECK(tokensieve_stop_sequences(TOKENSIEVE_DIALECT_PASSTHROUGH, NULL, 0, &n) == TOKENSIEVE_OK);
    CHECK(n == 0);
    code = tokensieve_dialect_from_name("glm-4.7");
    CHECK(code == TOKENSIEVE_DIALECT_GLM_4_5);
    CHECK(tokensieve_dialect_from_name("hermes") == TOKENSIEVE_DIALECT_HERMES);
}

static void errors(void) {
    char buf[256];
    size_t n = 0;
    const char *bad[][2] = {
        {"[{\"name\": \"f\"", "calls_json: not JSON: unexpected end of input at byte 13"},
        {"{\"name\": \"f\"}", "calls_json: not a JSON array"},
        {"[{\"input\": {}}]", "calls_json: [0]: no \"name\" string"},
        {"[{\"name\": \"f\", \"input\": [1]}]", "calls_json: [0]: \"input\" is not an object"},
    };
    size_t i;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(tokensieve_format_tool_calls_json("{\"dialect\":\"hermes\"}", bad[i][0], strlen(bad[i][0]),
                                                buf, sizeof buf, &n) == TOKENSIEVE_E_INPUT);
        CHECK(has(tokensieve_last_error(NULL), bad[i][1]));
    }
    /* A call the dialect cannot carry. */
    CHECK(tokensieve_format_tool_calls_json("{\"dialect\":\"pythonic\"}", "[{\"name\":\"a b\"}]", 16, buf,
                                            sizeof buf, &n) == TOKENSIEVE_E_INPUT);
    CHECK(has(tokensieve_last_error(NULL), "call 0: the name cannot be written"));
    /* Not UTF-8. */
    CHECK(tokensieve_format_tool_calls_json("{\"dialect\":\"hermes\"}", "[\"\xff\"]", 4, buf, sizeof buf,
                                            &n) == TOKENSIEVE_E_INPUT);
    CHECK(has(tokensieve_last_error(NULL), "not UTF-8"));
    /* Unknown dialects: by name in the JSON config, by code, by name lookup. */
    CHECK(tokensieve_format_tool_calls_json("{\"dialect\":\"nope\"}", "[]", 2, buf, sizeof buf, &n) ==
          TOKENSIEVE_E_CONFIG);
    CHECK(has(tokensieve_last_error(NULL), "config key `dialect`"));
    CHECK(tokensieve_format_tool_results(999, "[]", 2, buf, sizeof buf, &n) == TOKENSIEVE_E_CONFIG);
    CHECK(has(tokensieve_last_error(NULL), "dialect 999 is not a TOKENSIEVE_DIALECT_* value"));
    CHECK(tokensieve_stop_sequences(999, NULL, 0, &n) == TOKENSIEVE_E_CONFIG);
    CHECK(tokensieve_dialect_from_name("nope") == TOKENSIEVE_E_CONFIG);
    CHECK(has(tokensieve_last_error(NULL), "unknown dialect \"nope\""));
    CHECK(tokensieve_format_tool_results(TOKENSIEVE_DIALECT_HERMES, "[{\"content\": 1}]", 16, buf,
                                         sizeof buf, &n) == TOKENSIEVE_E_INPUT);
    CHECK(has(tokensieve_last_error(NULL), "results_json: [0]: \"content\" is not a string"));
    /* NULL pointers. */
    CHECK(tokensieve_format_tool_calls_json(NULL, "[]", 2, buf, sizeof buf, &n) == TOKENSIEVE_E_NULL);
    CHECK(has(tokensieve_last_error(NULL), "config_json is NULL"));
    CHECK(tokensieve_format_tool_calls_json("{\"dialect\":\"hermes\"}", NULL, 0, buf, sizeof buf, &n) ==
          TOKENSIEVE_E_NULL);
    CHECK(has(tokensieve_last_error(NULL), "calls_json is NULL"));
    CHECK(tokensieve_format_tool_calls_json("{\"dialect\":\"hermes\"}", "[]", 2, buf, sizeof buf, NULL) ==
          TOKENSIEVE_E_NULL);
    CHECK(has(tokensieve_last_error(NULL), "out_len is NULL"));
    CHECK(tokensieve_format_tool_calls(NULL, "[]", 2, buf, sizeof buf, &n) == TOKENSIEVE_E_NULL);
    CHECK(tokensieve_format_tool_results(TOKENSIEVE_DIALECT_HERMES, NULL, 0, buf, sizeof buf, &n) ==
          TOKENSIEVE_E_NULL);
    CHECK(tokensieve_stop_sequences(TOKENSIEVE_DIALECT_HERMES, NULL, 2, &n) == TOKENSIEVE_E_NULL);
    CHECK(tokensieve_stop_sequences(TOKENSIEVE_DIALECT_HERMES, NULL, 0, NULL) == TOKENSIEVE_E_NULL);
    CHECK(tokensieve_dialect_from_name(NULL) == TOKENSIEVE_E_NULL);
    {
        tokensieve_config c;
        tokensieve_config_default(&c); /* no dialect */
        CHECK(tokensieve_format_tool_calls(&c, "[]", 2, buf, sizeof buf, &n) == TOKENSIEVE_E_CONFIG);
        CHECK(has(tokensieve_last_error(NULL), "no dialect"));
    }
}

int main(void) {
    round_trip();
    exact_text_and_buffer();
    results();
    stops();
    errors();
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
