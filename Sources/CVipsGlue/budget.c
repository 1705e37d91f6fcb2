// A decode's time budget: the CPU time spent computing a pipeline's pixels, counted in a
// pass-through image set at the pipeline's end, and a stop once it is spent. Work that no
// limit counts (a vector render of thousands of shapes, a loader's own loops) is stopped at the
// next region asked for once the budget is spent, whoever reads the pipeline: our renders in
// the calling thread or libvips' savers in their workers. Within a region, a loader that calls
// back as it goes (libjpeg's progress monitor, libwebp's row jobs: wi_budget_poll) stops there;
// what a loader does within one call that calls nothing back (poppler's page, librsvg's tile)
// is bounded by a child process instead (child_process.c).
//
// CPU time rather than wall time: it counts the work the input asks for, so that a busy machine
// (or a test run beside others) does not stop a decode that would fit.

#include "CVipsGlue.h"
#include "tsan_handoff.h"

#include <stdatomic.h>
#include <time.h>

struct wi_budget {
    atomic_int references;
    int64_t limit_ns;
    atomic_llong used_ns;
    atomic_int spent;
};

wi_budget *wi_budget_new(int64_t limit_ns) {
    wi_budget *budget = g_new0(wi_budget, 1);
    atomic_init(&budget->references, 1);
    budget->limit_ns = limit_ns;
    return budget;
}

static wi_budget *wi_budget_ref(wi_budget *budget) {
    atomic_fetch_add(&budget->references, 1);
    return budget;
}

void wi_budget_unref(wi_budget *budget) {
    if (atomic_fetch_sub(&budget->references, 1) == 1) {
        g_free(budget);
    }
}

int64_t wi_budget_used_ns(wi_budget *budget) {
    return atomic_load(&budget->used_ns);
}

static void wi_budget_add(wi_budget *budget, int64_t ns) {
    if (atomic_fetch_add(&budget->used_ns, ns) + ns > budget->limit_ns) {
        atomic_store(&budget->spent, 1);
    }
}

int64_t wi_thread_cpu_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

// The budget this thread counts its own work into (wi_budget_counting_begin), and the thread's
// CPU time up to which it has been counted.
static _Thread_local wi_budget *counted_budget;
static _Thread_local int64_t counted_mark;

// Counts this thread's CPU time since its mark into `budget`, when the thread counts into it.
static void wi_budget_count_thread(wi_budget *budget) {
    if (budget != NULL && counted_budget == budget) {
        int64_t now = wi_thread_cpu_ns();
        wi_budget_add(budget, now - counted_mark);
        counted_mark = now;
    }
}

wi_budget_counting wi_budget_counting_begin(wi_budget *budget) {
    wi_budget_counting previous = {counted_budget};
    wi_budget_count_thread(counted_budget);
    counted_budget = budget;
    counted_mark = wi_thread_cpu_ns();
    return previous;
}

void wi_budget_counting_end(wi_budget_counting previous) {
    wi_budget_count_thread(counted_budget);
    // The enclosing count resumes from here: what ran since its begin was counted above.
    counted_budget = previous.budget;
    counted_mark = wi_thread_cpu_ns();
}

// The regions of budgets' images this thread is computing, innermost first (each on the stack
// of its wi_budget_generate), with the thread's CPU time up to which each has been counted:
// what wi_budget_poll reads from inside a loader.
typedef struct wi_budget_region {
    wi_budget *budget;
    int64_t mark;
    struct wi_budget_region *outer;
} wi_budget_region;
static _Thread_local wi_budget_region *open_regions;

// Counts this thread's CPU time up to `now` into each region it is computing.
static void wi_budget_count_regions(int64_t now) {
    for (wi_budget_region *region = open_regions; region != NULL; region = region->outer) {
        wi_budget_add(region->budget, now - region->mark);
        region->mark = now;
        if (counted_budget == region->budget) {
            // Counted just now, not again by the thread's own count.
            counted_mark = now;
        }
    }
}

int wi_budget_active(void) {
    return open_regions != NULL || counted_budget != NULL;
}

// Reading the thread's CPU clock is a system call (570 ns here, against 6 ns for the coarse
// monotonic clock in the vDSO), and loaders poll every row: a poll counts the thread's time only
// when a millisecond of wall time has passed since it last did (by the coarse clock: a kernel
// tick, 1 - 4 ms), as the thread cannot have used more CPU time than that meanwhile. A spent
// budget is seen at most a tick later; a flag another thread set, at once.
enum { WI_BUDGET_POLL_INTERVAL_NS = 1000000 };
static _Thread_local int64_t counted_at_wall_ns;

static int wi_budget_count_due(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
    int64_t wall = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
    if (wall - counted_at_wall_ns < WI_BUDGET_POLL_INTERVAL_NS) {
        return 0;
    }
    counted_at_wall_ns = wall;
    return 1;
}

int wi_budget_poll(void) {
    if (open_regions == NULL && counted_budget == NULL) {
        return 0;
    }
    int count = wi_budget_count_due();
    int spent = 0;
    if (open_regions != NULL) {
        if (count) {
            wi_budget_count_regions(wi_thread_cpu_ns());
        }
        for (wi_budget_region *region = open_regions; region != NULL; region = region->outer) {
            spent |= atomic_load(&region->budget->spent);
        }
    }
    if (counted_budget != NULL) {
        if (count) {
            wi_budget_count_thread(counted_budget);
        }
        spent |= atomic_load(&counted_budget->spent);
    }
    return spent;
}

// A pointer the Swift side owns, per thread: which budgets this thread made while it watches.
static _Thread_local void *wi_budget_watch;

void *wi_budget_watch_get(void) {
    return wi_budget_watch;
}

void wi_budget_watch_set(void *watch) {
    wi_budget_watch = watch;
}

int wi_budget_checkpoint(wi_budget *budget) {
    wi_budget_count_thread(budget);
    return atomic_load(&budget->spent);
}

static void wi_budget_error(wi_budget *budget) {
    vips_error(WI_BUDGET_DOMAIN, "over the time budget of %lld ms of CPU time", (long long)(budget->limit_ns / 1000000));
}

static int wi_budget_generate(VipsRegion *out, void *sequence, void *a, void *b, gboolean *stop) {
    (void)a;
    (void)stop;
    VipsRegion *in = sequence;
    wi_budget *budget = b;
    WI_TAKEN_BY_WORKER(out->im);
    // In a thread that counts its own work into this budget, what it did since its last count
    // (drawing the last region on a canvas, say) is counted first: a long run of such work
    // between regions is stopped at the next region, not after it ends.
    if (wi_budget_checkpoint(budget)) {
        wi_budget_error(budget);
        return -1;
    }
    // The input's work is done in this thread, inside vips_region_prepare, where a loader may
    // poll the budget (wi_budget_poll) and count it as it goes.
    wi_budget_region region = {budget, wi_thread_cpu_ns(), open_regions};
    open_regions = &region;
    VipsRect *area = &out->valid;
    int failed = vips_region_prepare(in, area) != 0 || vips_region_region(out, in, area, area->left, area->top) != 0;
    open_regions = region.outer;
    int64_t end = wi_thread_cpu_ns();
    wi_budget_add(budget, end - region.mark);
    if (counted_budget == budget) {
        // Counted just now, not again by the thread's own count.
        counted_mark = end;
    }
    if (failed && atomic_load(&budget->spent)) {
        // A loader that stopped for the budget midway says only that it failed.
        wi_budget_error(budget);
    }
    return failed ? -1 : 0;
}

static void wi_budget_release(VipsImage *image, wi_budget *budget) {
    (void)image;
    wi_budget_unref(budget);
}

VipsImage *wi_budget_lazy(VipsImage *in, wi_budget *budget) {
    wi_warnings_clear();
    VipsImage *out = vips_image_new();
    // The output holds the input, and the budget, until it closes.
    g_object_ref(in);
    vips_object_local(out, in);
    g_signal_connect(out, "close", G_CALLBACK(wi_budget_release), wi_budget_ref(budget));
    // Any demand style: the input's is kept, as are its fields and metadata.
    if (vips_image_pipelinev(out, VIPS_DEMAND_STYLE_ANY, in, NULL) != 0 ||
        vips_image_generate(out, vips_start_one, wi_budget_generate, vips_stop_one, in, budget) != 0) {
        g_object_unref(out);
        return NULL;
    }
    WI_HANDED_TO_WORKERS(out);
    return out;
}
