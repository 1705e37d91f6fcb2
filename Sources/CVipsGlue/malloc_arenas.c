#include "CVipsGlue.h"

#include <malloc.h>

int wi_malloc_arena_max(int count) {
    return mallopt(M_ARENA_MAX, count);
}
