/* A program built against an installed tokensieve (ffi-c/install.sh): by ffi-c/test.sh with
 * `pkg-config --cflags --libs tokensieve` and with CMake's find_package(tokensieve). Prints
 * the visible text of a short hermes stream fed a byte at a time: "Hi there". */
#include <stdio.h>
#include <string.h>

#include "tokensieve.h"

int main(void) {
    static const char text[] = "Hi <think>hmm</think>there";
    tokensieve_config cfg;
    tokensieve_parser *p;
    tokensieve_event ev;
    size_t i;
    int32_t rc;

    if (tokensieve_abi_version() != TOKENSIEVE_ABI_VERSION) {
        fprintf(stderr, "ABI version %u, header %d\n", tokensieve_abi_version(), TOKENSIEVE_ABI_VERSION);
        return 1;
    }
    tokensieve_config_default(&cfg);
    cfg.dialect = TOKENSIEVE_DIALECT_HERMES;
    p = tokensieve_new(&cfg);
    if (p == NULL) {
        fprintf(stderr, "%s\n", tokensieve_last_error(NULL));
        return 1;
    }
    for (i = 0; i <= strlen(text); i++) {
        if (i < strlen(text)) {
            rc = tokensieve_feed(p, text + i, 1);
        } else {
            rc = tokensieve_finish(p);
        }
        if (rc != TOKENSIEVE_OK) {
            fprintf(stderr, "%s\n", tokensieve_last_error(p));
            return 1;
        }
        while ((rc = tokensieve_next(p, &ev)) == TOKENSIEVE_EVENT) {
            if (ev.kind == TOKENSIEVE_KIND_CHUNK && (ev.flags & TOKENSIEVE_FLAG_VISIBLE)) {
                fwrite(ev.text.ptr, 1, ev.text.len, stdout);
            }
        }
        if (rc < 0) {
            fprintf(stderr, "%s\n", tokensieve_last_error(p));
            return 1;
        }
    }
    putchar('\n');
    tokensieve_free(p);
    return 0;
}
