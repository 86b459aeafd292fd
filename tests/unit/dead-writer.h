/* SPDX-License-Identifier: MIT */
/* A writer that dies with its FILE.<pid>.pending mirror in place, for the
 * unit tests of the merge (test-common, test-chaos). */
#pragma once

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/pending.h"

/* A record line of PID with SEQ, as the profiler writes it. */
static inline int rec_line(char *buf, size_t n, uint64_t seq, int pid)
{
	return snprintf(buf, n, "{\"v\":1,\"seq\":%" PRIu64 ",\"ts\":%" PRIu64 ",\"pid\":%d,\"tid\":%d,\"event\":\"x\"}", seq,
			1000 + seq, pid, pid);
}

/* In a child that then dies: a mirror of TRACE holding the records SEQS
 * (0-terminated) in buffer 0.  Returns the child's pid once it is gone. */
static inline int dead_writer(const char *trace, const uint64_t *seqs)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		struct pending_header *h = NULL;
		char *mp = NULL, line[256];
		size_t used = 0;
		int tfd = open(trace, O_WRONLY | O_APPEND | O_CLOEXEC), fd = -1;

		if (tfd < 0 || pending_create(trace, tfd, 65536, 2, NULL, &h, &mp, &fd) < 0 ||
		    pending_reserve(h, fd, 0, 0, 65536) < 0)
			_exit(1);
		for (; *seqs; seqs++) {
			int n = rec_line(line, sizeof(line), *seqs, getpid());
			struct pending_rec r = { .seq = *seqs, .len = (uint32_t)n + 1, .magic = PENDING_REC_MAGIC };
			char *d = pending_data(h, 0) + used;

			memcpy(d, &r, sizeof(r));
			memcpy(d + sizeof(r), line, (size_t)n);
			d[sizeof(r) + n] = '\n';
			used += pending_rec_size(r.len);
		}
		pending_set_used(h, 0, used);
		_exit(0); /* dies with its mirror in place */
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return -1;
	return pid;
}
