/* SPDX-License-Identifier: MIT */
/* Small helpers shared by the profiler and the CLI. */
#pragma once

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static inline void freep(void *p)
{
	free(*(void **)p);
}
#define _cleanup_(f) __attribute__((cleanup(f)))
#define _cleanup_free_ _cleanup_(freep)
#define _unused_ __attribute__((unused))
#define _public_ __attribute__((visibility("default")))
#define ELEMENTSOF(a) (sizeof(a) / sizeof((a)[0]))

/* Free a NULL-terminated vector of malloc'd strings (cleanup attribute). */
static inline void strv_freep(char ***p)
{
	for (char **s = *p; s && *s; s++)
		free(*s);
	free(*p);
}

/* Hand ownership out of a cleanup variable. */
#define TAKE_PTR(p) ({ __typeof__(p) _p = (p); (p) = NULL; _p; })

/* Save errno for the scope; restore on exit (hooks must not change it). */
static inline void errno_restore(int *e)
{
	errno = *e;
}
#define PROTECT_ERRNO _cleanup_(errno_restore) _unused_ int _saved_errno = errno

static inline bool startswith(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static inline bool streq(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

/* Trim ASCII white space in place; returns the new start. */
static inline char *strstrip(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n'))
		*--e = 0;
	return s;
}

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* MS milliseconds from now on the monotonic clock, as the deadline of a
 * timed wait (pthread_*_clock*, sem_clockwait): a step of the wall clock
 * neither stalls nor cuts short a wait. */
static inline struct timespec mono_deadline_ms(long ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

/* The monotonic clock to a few milliseconds, read at a tenth of the cost:
 * for rate limits. */
static inline uint64_t mono_coarse_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* write(2) all N bytes of BUF, retrying EINTR and short writes; 0 or
 * -errno.  *DONE: how many went out (before an error). */
static inline int write_counted(int fd, const void *buf, size_t n, size_t *done)
{
	const char *p = buf;

	*done = 0;
	while (*done < n) {
		ssize_t k = write(fd, p + *done, n - *done);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (k == 0)
			return -EIO;
		*done += (size_t)k;
	}
	return 0;
}

/* write(2) all of buf, retrying EINTR and short writes; 0 or -errno. */
static inline int write_all(int fd, const void *buf, size_t n)
{
	size_t done;

	return write_counted(fd, buf, n, &done);
}

/* Open PATH for appending, creating it with mode 0644 (minus the umask)
 * but never through a symlink; the fd (O_CLOEXEC) or -errno. */
static inline int open_append_nofollow(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0644);

	return fd < 0 ? -errno : fd;
}
