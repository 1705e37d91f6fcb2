#include "thread_state.h"

#include <pthread.h>
#include <stdlib.h>

static pthread_key_t wi_thread_key;
static pthread_once_t wi_thread_key_once = PTHREAD_ONCE_INIT;

static void wi_thread_state_free(void *value) {
    wi_thread_state *state = value;
    if (state->decompressor != NULL) {
        tjDestroy(state->decompressor);
    }
    if (state->compressor != NULL) {
        tjDestroy(state->compressor);
    }
    tjFree(state->encoded);
    free(state->decoded.bytes);
    free(state->dc_only.bytes);
    free(state->dc_coefficients.bytes);
    free(state);
}

static void wi_thread_make_key(void) {
    pthread_key_create(&wi_thread_key, wi_thread_state_free);
}

wi_thread_state *wi_thread_state_get(void) {
    return wi_thread_value(&wi_thread_key, &wi_thread_key_once, wi_thread_make_key, sizeof(wi_thread_state));
}
