/* SPDX-License-Identifier: MIT */
/* The stderr sink: each record as one JSON line on fd 2, for debugging. */
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>

#include "profiler/sinks/sink.h"
#include "common/util.h"

/* Nothing to open. */
static int stderr_open(struct ct_sink *s, const struct ct_output *o, const struct ct_sink_spec *spec, char **why)
{
	s->where = strdup("stderr");
	return s->where ? 0 : -ENOMEM;
}

/* One line, one writev. */
static void stderr_write(struct ct_sink *s, const struct ct_rec *r)
{
	struct iovec iov[2] = { { (void *)r->line, r->len }, { "\n", 1 } };
	ssize_t k;

	do
		k = writev(STDERR_FILENO, iov, 2);
	while (k < 0 && errno == EINTR);
	if (k < 0)
		ct_sink_lost(s, 1, strerror(errno));
}

const struct ct_sink_ops ct_sink_stderr_ops = {
	.kind = OUT_STDERR,
	.open = stderr_open,
	.write = stderr_write,
};
