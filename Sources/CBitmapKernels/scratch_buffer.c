#include "CBitmapKernels.h"
#include "resample_scratch.h"

#include <pthread.h>
#include <stdlib.h>

uint8_t *wi_buffer_reserve(wi_buffer *buffer, size_t size) {
    if (buffer->size < size) {
        free(buffer->bytes);
        buffer->bytes = malloc(size);
        buffer->size = buffer->bytes == NULL ? 0 : size;
    }
    return buffer->bytes;
}

void wi_buffer_trim(wi_buffer *buffer) {
    if (buffer->size > WI_KEEP_BYTES) {
        free(buffer->bytes);
        buffer->bytes = NULL;
        buffer->size = 0;
    }
}

void *wi_thread_value(pthread_key_t *key, pthread_once_t *once, void (*make_key)(void), size_t size) {
    pthread_once(once, make_key);
    void *value = pthread_getspecific(*key);
    if (value == NULL) {
        value = calloc(1, size);
        if (value == NULL || pthread_setspecific(*key, value) != 0) {
            free(value);
            return NULL;
        }
    }
    return value;
}

static pthread_key_t wi_resample_key;
static pthread_once_t wi_resample_key_once = PTHREAD_ONCE_INIT;

static void wi_resample_scratch_free(void *value) {
    wi_resample_scratch *scratch = value;
    free(scratch->rows.bytes);
    free(scratch->shrunk.bytes);
    free(scratch->weighted.bytes);
    wi_resample_plan_free(scratch->last_plan);
    free(scratch);
}

static void wi_resample_make_key(void) {
    pthread_key_create(&wi_resample_key, wi_resample_scratch_free);
}

wi_resample_scratch *wi_resample_scratch_get(void) {
    return wi_thread_value(&wi_resample_key, &wi_resample_key_once, wi_resample_make_key, sizeof(wi_resample_scratch));
}
