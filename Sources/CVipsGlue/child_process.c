// Running a program in a child process with a wall-clock limit, for the renders that cannot be
// stopped from within (IsolatedRenderer.swift): poppler draws a PDF page, and librsvg a
// 2000x2000 tile, in one call that checks nothing, so a time budget can only end such a render
// by ending the process doing it.
//
// The child's standard error is a pipe only it writes to: when the child ends (or is killed),
// the pipe closes, which poll() sees, so the parent waits on that with a timeout rather than
// polling waitpid.
#define _GNU_SOURCE
#include "CVipsGlue.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

int wi_memory_file(const char *name) {
    return memfd_create(name, MFD_CLOEXEC);
}

static int64_t wi_now_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

int wi_run_child(const char *path, char *const argv[], int input_fd, int output_fd, int timeout_ms, int *status,
                 char *message, size_t capacity) {
    int errors[2];
    if (pipe2(errors, O_CLOEXEC) != 0) {
        return -1;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, input_fd, 0);
    posix_spawn_file_actions_adddup2(&actions, output_fd, 1);
    posix_spawn_file_actions_adddup2(&actions, errors[1], 2);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    // Nothing else of the parent's: a host's pipe or socket made without O_CLOEXEC (Foundation's
    // Pipe is) would otherwise stay open in the renderer until it ends, holding back the end of
    // file its reader waits for.
    posix_spawn_file_actions_addclosefrom_np(&actions, 3);
#endif
    // The child starts with no signal blocked and every signal at its default action (its CPU
    // time budget ends it with SIGPROF's).
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &all);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    pid_t pid;
    int failed = posix_spawn(&pid, path, &actions, &attributes, argv, environ);
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    close(errors[1]);
    if (failed != 0) {
        close(errors[0]);
        errno = failed;
        return -1;
    }
    size_t used = 0;
    int timed_out = 0;
    int64_t deadline = wi_now_ms() + timeout_ms;
    for (;;) {
        int64_t remaining = deadline - wi_now_ms();
        if (remaining <= 0) {
            timed_out = 1;
            break;
        }
        struct pollfd wait = {errors[0], POLLIN, 0};
        int ready = poll(&wait, 1, (int)remaining);
        if (ready < 0 && errno == EINTR) {
            continue;
        }
        if (ready <= 0) {
            // Out of time, or the child cannot be watched: either way it is ended.
            timed_out = 1;
            break;
        }
        char chunk[512];
        ssize_t count = read(errors[0], chunk, sizeof chunk);
        if (count < 0 && errno == EINTR) {
            continue;
        }
        if (count <= 0) {
            break;
        }
        size_t kept = capacity > used + 1 ? VIPS_MIN((size_t)count, capacity - used - 1) : 0;
        memcpy(message + used, chunk, kept);
        used += kept;
    }
    close(errors[0]);
    if (capacity > 0) {
        message[used] = '\0';
    }
    if (timed_out) {
        kill(pid, SIGKILL);
    }
    while (waitpid(pid, status, 0) < 0 && errno == EINTR) {
    }
    return timed_out ? 1 : 0;
}

int wi_limit_cpu_time(int64_t milliseconds) {
    // The process's CPU time counts from its spawn (exec does not reset it): its start so far
    // is part of the budget, as the parent's own start is part of the parent's wall time.
    struct timespec used;
    int64_t left_us = milliseconds * 1000;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &used) == 0) {
        left_us -= (int64_t)used.tv_sec * 1000000 + used.tv_nsec / 1000;
    }
    if (left_us < 1000) {
        left_us = 1000;
    }
    struct itimerval timer = {{0, 0}, {left_us / 1000000, left_us % 1000000}};
    return setitimer(ITIMER_PROF, &timer, NULL);
}
