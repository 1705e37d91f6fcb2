// libwebp's lossy decoder filters and outputs each row of macroblocks as a job for a worker
// (a thread of its own, when the image is 512 pixels wide or more and threads are asked for,
// as libvips' webpload asks), through an interface a program may replace: WebPSetWorkerInterface,
// exported by libwebp for that, with its types in libwebp's utils/thread_utils.h (not installed;
// declared below as libwebp 0.5 to 1.4 define them). Ours runs a job in the calling thread when
// that thread computes a budget's region, where the budget counts it, and fails it instead once
// the budget is spent: libwebp then ends the decode ("Output aborted"), so a 100 MP WebP stops
// within a row of macroblocks rather than after its whole decode. Elsewhere (encoders, decodes
// under no budget), jobs go to libwebp's own workers as before.

#include "CVipsGlue.h"

#include <pthread.h>

typedef enum { WI_WEBP_NOT_OK = 0, WI_WEBP_OK, WI_WEBP_WORK } wi_webp_worker_status;

typedef struct {
    void *impl;
    wi_webp_worker_status status;
    int (*hook)(void *, void *);
    void *data1;
    void *data2;
    int had_error;
} WebPWorker;

typedef struct {
    void (*Init)(WebPWorker *const worker);
    int (*Reset)(WebPWorker *const worker);
    int (*Sync)(WebPWorker *const worker);
    void (*Launch)(WebPWorker *const worker);
    void (*Execute)(WebPWorker *const worker);
    void (*End)(WebPWorker *const worker);
} WebPWorkerInterface;

extern int WebPSetWorkerInterface(const WebPWorkerInterface *const winterface);
extern const WebPWorkerInterface *WebPGetWorkerInterface(void);

// libwebp's own interface, which ours hands everything else to.
static WebPWorkerInterface wi_webp_default;

static void wi_webp_init(WebPWorker *const worker) {
    wi_webp_default.Init(worker);
}

static int wi_webp_reset(WebPWorker *const worker) {
    return wi_webp_default.Reset(worker);
}

static int wi_webp_sync(WebPWorker *const worker) {
    return wi_webp_default.Sync(worker);
}

static void wi_webp_launch(WebPWorker *const worker) {
    if (!wi_budget_active()) {
        wi_webp_default.Launch(worker);
        return;
    }
    // In the calling thread: libwebp's Sync before each launch waits for the job before, so
    // the jobs keep their order; its worker thread, if made, stays idle.
    if (wi_budget_poll()) {
        // Seen by the decoder's next Sync, which ends the decode.
        worker->had_error = 1;
        return;
    }
    wi_webp_default.Execute(worker);
}

static void wi_webp_execute(WebPWorker *const worker) {
    wi_webp_default.Execute(worker);
}

static void wi_webp_end(WebPWorker *const worker) {
    wi_webp_default.End(worker);
}

static void wi_webp_install(void) {
    wi_webp_default = *WebPGetWorkerInterface();
    static const WebPWorkerInterface budgeted = {
        wi_webp_init, wi_webp_reset, wi_webp_sync, wi_webp_launch, wi_webp_execute, wi_webp_end,
    };
    WebPSetWorkerInterface(&budgeted);
}

void wi_webp_budget_install(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, wi_webp_install);
}
