// Stress for the liborc race (issue 13, item 6): THREADS threads run JOBS libvips jobs each,
// set up as the library sets libvips up (operation cache off, one worker thread per pipeline),
// so every resize compiles and frees its own liborc programs. Each job, on the next image in
// turn: vips_thumbnail_buffer to 300x200 + JPEG q80, then a load + vips_resize by 0.37 + vips_avg,
// then a Gaussian blur of that (libvips' integer convolution, liborc programs of its own) + vips_avg.
// The liborc entry points libvips calls are counted by interposing them (the counts prove
// liborc was used); built and run by scripts/orc-stress.sh.
//   orc-stress THREADS JOBS IMAGE...
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <vips/vips.h>
#include <vips/vector.h>

static atomic_long compiled, programs_freed, failures;

// libvips calls these through the PLT: ours are found first and hand on to liborc's, which
// main looks up before any thread starts.
static int (*real_compile)(void *);
static void (*real_free)(void *);

int orc_program_compile(void *program) {
    atomic_fetch_add(&compiled, 1);
    return real_compile(program);
}

void orc_program_free(void *program) {
    atomic_fetch_add(&programs_freed, 1);
    real_free(program);
}

typedef struct {
    GBytes **images;
    int image_count;
    int jobs;
    int first;
} worker;

static void *run(void *argument) {
    worker *work = argument;
    for (int job = 0; job < work->jobs; job++) {
        gsize length;
        const void *data = g_bytes_get_data(work->images[(work->first + job) % work->image_count], &length);
        VipsImage *thumbnail = NULL, *loaded = NULL, *resized = NULL, *blurred = NULL;
        void *jpeg = NULL;
        size_t jpeg_length = 0;
        double average = 0;
        if (vips_thumbnail_buffer((void *)data, length, &thumbnail, 300, "height", 200, NULL) ||
            vips_jpegsave_buffer(thumbnail, &jpeg, &jpeg_length, "Q", 80, NULL) ||
            !(loaded = vips_image_new_from_buffer(data, length, "", NULL)) ||
            vips_resize(loaded, &resized, 0.37, NULL) || vips_avg(resized, &average, NULL) ||
            vips_gaussblur(resized, &blurred, 2.0, NULL) || vips_avg(blurred, &average, NULL)) {
            atomic_fetch_add(&failures, 1);
            vips_error_clear();
        }
        g_free(jpeg);
        if (thumbnail) g_object_unref(thumbnail);
        if (loaded) g_object_unref(loaded);
        if (resized) g_object_unref(resized);
        if (blurred) g_object_unref(blurred);
    }
    return NULL;
}

int main(int argc, char **argv) {
    real_compile = (int (*)(void *))dlsym(RTLD_NEXT, "orc_program_compile");
    real_free = (void (*)(void *))dlsym(RTLD_NEXT, "orc_program_free");
    if (!real_compile || !real_free) return 2;
    if (argc < 4 || VIPS_INIT(argv[0])) {
        fprintf(stderr, "usage: orc-stress THREADS JOBS IMAGE...\n");
        return 2;
    }
    vips_cache_set_max(0);
    vips_concurrency_set(1);
    int threads = atoi(argv[1]), jobs = atoi(argv[2]), image_count = argc - 3;
    GBytes *images[image_count];
    for (int i = 0; i < image_count; i++) {
        gchar *contents;
        gsize length;
        if (!g_file_get_contents(argv[3 + i], &contents, &length, NULL)) return 2;
        images[i] = g_bytes_new_take(contents, length);
    }
    printf("vips_vector_isenabled: %d\n", vips_vector_isenabled());
    pthread_t ids[threads];
    worker works[threads];
    GTimer *timer = g_timer_new();
    for (int t = 0; t < threads; t++) {
        works[t] = (worker){images, image_count, jobs, t};
        pthread_create(&ids[t], NULL, run, &works[t]);
    }
    for (int t = 0; t < threads; t++) pthread_join(ids[t], NULL);
    printf("%d threads x %d jobs in %.1f s: liborc programs compiled %ld, freed %ld; failed jobs %ld\n", threads, jobs,
           g_timer_elapsed(timer, NULL), atomic_load(&compiled), atomic_load(&programs_freed), atomic_load(&failures));
    g_timer_destroy(timer);
    for (int i = 0; i < image_count; i++) g_bytes_unref(images[i]);
    return failures ? 1 : 0;
}
