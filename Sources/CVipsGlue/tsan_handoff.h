// ThreadSanitizer's view of libvips handing an image to its workers. A lazy image's state is
// written by the thread that makes the image and read by the workers that compute it; libvips
// orders the two (the image is made before anything asks for its pixels), but through GLib's
// thread pool and locks, futex calls TSan does not see, so it reports every such read as a race.
// The maker releases the state once it is complete and each generate call acquires it first:
// the order libvips guarantees, told to TSan; two workers are still not ordered with each other,
// so a race between them is still reported. Nothing without TSan.
#ifndef WI_TSAN_HANDOFF_H
#define WI_TSAN_HANDOFF_H

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define WI_TSAN_HANDOFF 1
#endif
#endif

#ifdef WI_TSAN_HANDOFF
void __tsan_acquire(void *address);
void __tsan_release(void *address);
#define WI_HANDED_TO_WORKERS(state) __tsan_release((void *)(state))
#define WI_TAKEN_BY_WORKER(state) __tsan_acquire((void *)(state))
#else
#define WI_HANDED_TO_WORKERS(state) ((void)(state))
#define WI_TAKEN_BY_WORKER(state) ((void)(state))
#endif

#endif
