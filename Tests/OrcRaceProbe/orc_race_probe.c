// The liborc race reproducer (scripts/orc-race.sh, and a short form in the test suite).
//
//   orc-race-probe orc|vips THREADS SECONDS
//
// orc: THREADS threads compile, run and free liborc programs straight against liborc, as
// libvips does when it builds and tears down pipelines: each program adds a constant of its
// own thread and iteration to its input, 1 to 12 times (so code chunks of several sizes are
// split and merged), and its output is checked (a program that ran another's code gives a
// wrong result). vips: THREADS threads run libvips pipelines that compile liborc programs
// (resize, Gaussian blur: its integer convolution) on small images, so that compiles and
// frees dominate. Each runs for SECONDS, then prints what it did; exit 1 on a wrong result
// or a failed libvips call. On liborc 0.4.33 without the lock of Sources/CVipsGlue/orc_lock.c
// both crash (SEGV in liborc's code memory, or glibc's heap checks abort).
//
// Built by SwiftPM with orc_lock.c (CVipsGlue); scripts/orc-race.sh also builds it without,
// defining WI_WITHOUT_ORC_LOCK.
#include <orc/orc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vips/vips.h>
#ifndef WI_WITHOUT_ORC_LOCK
#include "CVipsGlue.h"
#endif

static atomic_long completed, wrong;
static atomic_int stop;

static void *compile_run_free(void *argument) {
    long thread = (long)argument;
    int16_t source[64], destination[64];
    for (int i = 0; i < 64; i++) source[i] = (int16_t)i;
    unsigned seed = (unsigned)thread * 7919u + 1u;
    for (long iteration = 0; !atomic_load(&stop); iteration++) {
        int additions = 1 + rand_r(&seed) % 12;
        int constant = (int)(thread * 100 + iteration % 50 + 1);
        OrcProgram *program = orc_program_new_ds(2, 2);
        orc_program_add_constant(program, 2, constant, "c1");
        orc_program_add_temporary(program, 2, "t1");
        orc_program_append_str(program, "addw", "t1", "s1", "c1");
        for (int i = 1; i < additions; i++) orc_program_append_str(program, "addw", "t1", "t1", "c1");
        orc_program_append_str(program, "copyw", "d1", "t1", NULL);
        if (ORC_COMPILE_RESULT_IS_SUCCESSFUL(orc_program_compile(program))) {
            OrcExecutor executor;
            memset(&executor, 0, sizeof executor);
            orc_executor_set_program(&executor, program);
            orc_executor_set_n(&executor, 64);
            orc_executor_set_array_str(&executor, "s1", source);
            orc_executor_set_array_str(&executor, "d1", destination);
            orc_executor_run(&executor);
            for (int i = 0; i < 64; i++) {
                if (destination[i] != (int16_t)(i + constant * additions)) {
                    atomic_fetch_add(&wrong, 1);
                    break;
                }
            }
        } else {
            atomic_fetch_add(&wrong, 1);
        }
        orc_program_free(program);
        atomic_fetch_add(&completed, 1);
    }
    return NULL;
}

static void *build_and_tear_down(void *argument) {
    long thread = (long)argument;
    for (long job = 0; !atomic_load(&stop); job++) {
        VipsImage *black = NULL, *image = NULL, *resized = NULL, *blurred = NULL;
        double average;
        int side = 16 + (int)((job + thread) % 32);
        if (vips_black(&black, side, side, "bands", 3, NULL) ||
            vips_cast(black, &image, VIPS_FORMAT_UCHAR, NULL) ||
            vips_resize(image, &resized, 0.37 + 0.01 * (double)(job % 20), NULL) ||
            vips_avg(resized, &average, NULL) ||
            vips_gaussblur(image, &blurred, 1.0 + (double)(job % 5), NULL) ||
            vips_avg(blurred, &average, NULL)) {
            atomic_fetch_add(&wrong, 1);
            vips_error_clear();
        }
        if (black) g_object_unref(black);
        if (image) g_object_unref(image);
        if (resized) g_object_unref(resized);
        if (blurred) g_object_unref(blurred);
        atomic_fetch_add(&completed, 1);
    }
    vips_thread_shutdown();
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 4 || (strcmp(argv[1], "orc") != 0 && strcmp(argv[1], "vips") != 0)) {
        fprintf(stderr, "usage: orc-race-probe orc|vips THREADS SECONDS\n");
        return 2;
    }
    int vips = strcmp(argv[1], "vips") == 0;
    int threads = atoi(argv[2]);
    double seconds = atof(argv[3]);
    if (threads < 1 || threads > 64 || !(seconds > 0)) return 2;
    const char *lock = "none (built without orc_lock.c)";
#ifndef WI_WITHOUT_ORC_LOCK
    const char *version = "";
    switch (wi_orc_lock_install(&version)) {
    case WI_ORC_LOCKED_HERE: lock = "ours (liborc before 0.4.34)"; break;
    case WI_ORC_LOCKED_BY_LIBORC: lock = "liborc's own"; break;
    default: lock = "none (liborc absent)"; break;
    }
#endif
    if (VIPS_INIT(argv[0])) return 2;
    // As the library sets libvips up: no operation cache, one worker per pipeline.
    vips_cache_set_max(0);
    vips_concurrency_set(1);
    orc_init();
    pthread_t workers[64];
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (long i = 0; i < threads; i++) {
        pthread_create(&workers[i], NULL, vips ? build_and_tear_down : compile_run_free, (void *)i);
    }
    do {
        struct timespec pause = {0, 10 * 1000 * 1000};
        nanosleep(&pause, NULL);
        clock_gettime(CLOCK_MONOTONIC, &now);
    } while ((double)(now.tv_sec - start.tv_sec) + (double)(now.tv_nsec - start.tv_nsec) / 1e9 < seconds);
    atomic_store(&stop, 1);
    for (int i = 0; i < threads; i++) pthread_join(workers[i], NULL);
    clock_gettime(CLOCK_MONOTONIC, &now);
    double elapsed = (double)(now.tv_sec - start.tv_sec) + (double)(now.tv_nsec - start.tv_nsec) / 1e9;
    printf("%s: liborc %s, lock: %s, %d threads, %ld %s in %.1f s, %ld wrong\n", argv[1], orc_version_string(),
           lock, threads, (long)atomic_load(&completed), vips ? "pipelines" : "programs", elapsed,
           (long)atomic_load(&wrong));
    return atomic_load(&wrong) == 0 ? 0 : 1;
}
