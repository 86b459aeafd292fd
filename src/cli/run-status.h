/* SPDX-License-Identifier: MIT */
/* The losses traced processes report to `clrtrace run` (run-status.c). */
#pragma once

#include <stdint.h>

struct run_status {
	int reports;       /* processes that reported */
	uint64_t lost;     /* records lost, all sinks of all of them */
	char reasons[256]; /* distinct reasons, ", " between */
};

/* Listen; the fd (or -errno), *ENV the CLRTRACE_STATUS=... entry. */
int run_status_listen(char **env);
/* Read every report that came; never waits. */
void run_status_collect(int fd, struct run_status *st);
