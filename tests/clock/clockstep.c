/* SPDX-License-Identifier: MIT */
/*
 * LD_PRELOAD shim for tests/clock-step.sh: CLOCK_REALTIME, as this process
 * reads it, goes back one hour once the file CLOCKSTEP_FILE exists (looked
 * for at most every 10 ms).  A step of the wall clock, as NTP or an
 * administrator makes it, without changing the machine's clock.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int (*real_gettime)(clockid_t, struct timespec *);
static atomic_bool stepped;
static _Atomic long long next_look;

int clock_gettime(clockid_t c, struct timespec *ts)
{
	struct timespec m;
	const char *file;
	long long now;
	int r;

	if (!real_gettime)
		real_gettime = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
	r = real_gettime(c, ts);
	if (r != 0 || c != CLOCK_REALTIME)
		return r;
	if (!atomic_load(&stepped) && (file = getenv("CLOCKSTEP_FILE"))) {
		real_gettime(CLOCK_MONOTONIC, &m);
		now = m.tv_sec * 1000000000LL + m.tv_nsec;
		if (now >= atomic_load(&next_look)) {
			atomic_store(&next_look, now + 10000000LL);
			if (access(file, F_OK) == 0)
				atomic_store(&stepped, true);
		}
	}
	if (atomic_load(&stepped))
		ts->tv_sec -= 3600;
	return r;
}
