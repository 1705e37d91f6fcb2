// liborc's code memory, serialised where liborc does not do it itself.
//
// libvips compiles liborc programs as it builds a pipeline (resize, convolution, conversions)
// and frees them as the pipeline is torn down, from many threads at once. liborc 0.4.33 and
// earlier (Debian 12 ships 0.4.33) share one list of code chunks between all programs, and
// change it without their global lock: `orc_code_allocate_codemem` finds a free chunk under the
// lock but splits it and marks it used after releasing it (two compiles can take the same
// chunk), and `orc_code_chunk_free` merges neighbouring chunks with no lock at all. The result
// is a corrupt chunk list: SEGVs in `orc_code_free` and `orc_code_allocate_codemem`, heap
// corruption, or one program running another's code. liborc 0.4.34 fixed it (commit e48fa54,
// "orccodemem: Fix for potential race in codemem alloc/free": the whole allocation and the
// whole free under `orc_global_mutex`).
//
// The fix here: this file defines liborc's public compile and free entry points in our own
// binary. The dynamic linker resolves libvips' calls to the first definition in the process,
// ours, which takes a lock of our own and calls liborc's (found with dlsym(RTLD_NEXT)). On
// liborc 0.4.34 and later the lock is skipped (liborc holds its own); on earlier versions
// every compile and free runs under it. Our lock is not `orc_global_mutex` (which is not
// recursive and is taken inside these calls), and it is always taken first, so there is no
// lock-order inversion. liborc's vector paths stay on: turning liborc off makes libvips' resize
// 16 – 40% slower. `scripts/orc-race.sh` shows the crash without this file and its absence
// with it. WEBIMAGE_LIBORC_LOCK=off leaves it unlocked, to measure what the lock costs.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "CVipsGlue.h"

// liborc's own types, as far as these calls need them (liborc is reached only through dlsym:
// it is libvips' dependency, not ours, and may be absent when libvips is built without it).
typedef struct _OrcProgram OrcProgram;
typedef struct _OrcTarget OrcTarget;

static struct {
    int (*compile)(OrcProgram *);
    int (*compile_for_target)(OrcProgram *, OrcTarget *);
    int (*compile_full)(OrcProgram *, OrcTarget *, unsigned int);
    void (*reset)(OrcProgram *);
    void (*free)(OrcProgram *);
    const char *(*version)(void);
} real;

static pthread_once_t resolved = PTHREAD_ONCE_INIT;
static wi_orc_lock_mode mode = WI_ORC_ABSENT;
static char version[32];
// Recursive: liborc's compile entry points call one another, and each may come through here.
static pthread_mutex_t code_memory_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
// Calls that came through here, for the test that libvips' calls do.
static atomic_long routed_calls;

static void *find(const char *name) {
    void *symbol = dlsym(RTLD_NEXT, name);
    if (symbol == NULL) {
        // Not loaded after us in the lookup order (a binary that dlopens libvips, say): ask
        // liborc by name, without loading it.
        void *library = dlopen("liborc-0.4.so.0", RTLD_LAZY | RTLD_NOLOAD);
        if (library != NULL) {
            symbol = dlsym(library, name);
            dlclose(library);
        }
    }
    return symbol;
}

static void resolve(void) {
    real.compile = (int (*)(OrcProgram *))find("orc_program_compile");
    real.compile_for_target = (int (*)(OrcProgram *, OrcTarget *))find("orc_program_compile_for_target");
    real.compile_full = (int (*)(OrcProgram *, OrcTarget *, unsigned int))find("orc_program_compile_full");
    real.reset = (void (*)(OrcProgram *))find("orc_program_reset");
    real.free = (void (*)(OrcProgram *))find("orc_program_free");
    real.version = (const char *(*)(void))find("orc_version_string");
    if (real.compile == NULL || real.compile_for_target == NULL || real.compile_full == NULL ||
        real.reset == NULL || real.free == NULL || real.version == NULL) {
        return;
    }
    snprintf(version, sizeof version, "%s", real.version());
    int major = 0, minor = 0, micro = 0;
    sscanf(version, "%d.%d.%d", &major, &minor, &micro);
    // The fix is in 0.4.34 (e48fa54); every earlier release has the unlocked chunk list.
    int fixed = major > 0 || minor > 4 || (minor == 4 && micro >= 34);
    const char *setting = getenv("WEBIMAGE_LIBORC_LOCK");
    int turned_off = setting != NULL && strcmp(setting, "off") == 0;
    mode = fixed ? WI_ORC_LOCKED_BY_LIBORC : turned_off ? WI_ORC_TURNED_OFF : WI_ORC_LOCKED_HERE;
}

wi_orc_lock_mode wi_orc_lock_install(const char **liborc_version) {
    pthread_once(&resolved, resolve);
    if (liborc_version != NULL) {
        *liborc_version = version;
    }
    return mode;
}

long wi_orc_lock_routed_calls(void) {
    return atomic_load_explicit(&routed_calls, memory_order_relaxed);
}

// Takes our lock when this liborc needs it; returns whether it did.
static int lock_if_needed(void) {
    pthread_once(&resolved, resolve);
    atomic_fetch_add_explicit(&routed_calls, 1, memory_order_relaxed);
    if (mode != WI_ORC_LOCKED_HERE) return 0;
    pthread_mutex_lock(&code_memory_lock);
    return 1;
}

static void unlock_if(int locked) {
    if (locked) pthread_mutex_unlock(&code_memory_lock);
}

// liborc's ORC_COMPILE_RESULT_UNKNOWN_COMPILE, for a liborc missing an entry point (none is
// missing in any release since 0.4.5; libvips then runs its C paths).
enum { compile_failed = 0x200 };

int orc_program_compile(OrcProgram *program) {
    int locked = lock_if_needed();
    int result = real.compile != NULL ? real.compile(program) : compile_failed;
    unlock_if(locked);
    return result;
}

int orc_program_compile_for_target(OrcProgram *program, OrcTarget *target) {
    int locked = lock_if_needed();
    int result = real.compile_for_target != NULL ? real.compile_for_target(program, target) : compile_failed;
    unlock_if(locked);
    return result;
}

int orc_program_compile_full(OrcProgram *program, OrcTarget *target, unsigned int flags) {
    int locked = lock_if_needed();
    int result = real.compile_full != NULL ? real.compile_full(program, target, flags) : compile_failed;
    unlock_if(locked);
    return result;
}

void orc_program_reset(OrcProgram *program) {
    int locked = lock_if_needed();
    if (real.reset != NULL) real.reset(program);
    unlock_if(locked);
}

void orc_program_free(OrcProgram *program) {
    int locked = lock_if_needed();
    if (real.free != NULL) real.free(program);
    unlock_if(locked);
}
