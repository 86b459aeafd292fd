/* SPDX-License-Identifier: MIT */
/*
 * clrtrace run --ready REGEX.  Only run sees the program's output, and only
 * the profiler writes the trace: the relay thread copies the program's
 * standard output to clrtrace's own, line by line, and at the first line
 * that matches writes the time it read it (CLOCK_REALTIME, the clock of the
 * records' ts) into a pipe whose read end the program inherits; the
 * profiler reads it at the runtime's shutdown (startup.ready).  The
 * program's stdout is then a pipe, not a terminal: hence an option.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/run-ready.h"

#define LINE_MAX_KEPT 4096

int run_ready_prepare(struct run_ready *r, const char *regex)
{
	int k = regcomp(&r->re, regex, REG_EXTENDED | REG_NOSUB);

	if (k != 0) {
		char why[128];

		regerror(k, &r->re, why, sizeof(why));
		cli_error("run: --ready '%s': %s", regex, why);
		return -1;
	}
	if (pipe2(r->out, O_CLOEXEC) < 0 || pipe2(r->mark, O_CLOEXEC) < 0) {
		cli_error("run: --ready: cannot make a pipe: %s", strerror(errno));
		regfree(&r->re);
		return -1;
	}
	snprintf(r->env, sizeof(r->env), "CLRTRACE_READY_FD=%d", r->mark[0]);
	r->on = true;
	return 0;
}

void run_ready_child(const struct run_ready *r)
{
	if (!r || !r->on)
		return;
	dup2(r->out[1], STDOUT_FILENO);
	fcntl(r->mark[0], F_SETFD, 0);
}

/* Write all of BUF[0..n) to FD. */
static void write_all(int fd, const char *buf, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, buf, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		buf += w;
		n -= (size_t)w;
	}
}

static void *relay_main(void *arg)
{
	struct run_ready *r = arg;
	char buf[8192], line[LINE_MAX_KEPT + 1];
	size_t len = 0;
	bool matched = false;

	for (;;) {
		ssize_t n = read(r->out[0], buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		write_all(STDOUT_FILENO, buf, (size_t)n);
		for (ssize_t i = 0; i < n && !matched; i++) {
			if (buf[i] != '\n') {
				if (len < LINE_MAX_KEPT)
					line[len++] = buf[i];
				continue;
			}
			line[len] = '\0';
			len = 0;
			if (regexec(&r->re, line, 0, NULL, 0) == 0) {
				struct timespec ts;
				char mark[32];
				int l;

				clock_gettime(CLOCK_REALTIME, &ts);
				l = snprintf(mark, sizeof(mark), "%lld\n", (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
				write_all(r->mark[1], mark, (size_t)l);
				matched = true;
			}
		}
	}
	close(r->out[0]);
	return NULL;
}

void run_ready_started(struct run_ready *r)
{
	if (!r->on)
		return;
	close(r->out[1]);
	close(r->mark[0]);
	r->relaying = pthread_create(&r->relay, NULL, relay_main, r) == 0;
	if (!r->relaying) /* the program's output must still go somewhere */
		cli_error("run: --ready: cannot start the relay of the program's output");
}

void run_ready_done(struct run_ready *r)
{
	struct timespec until;

	if (!r->on)
		return;
	if (r->relaying) {
		/* a child of the program may hold its stdout open: not forever */
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 1;
		if (pthread_timedjoin_np(r->relay, NULL, &until) != 0) {
			pthread_detach(r->relay); /* still reading: it keeps the regex */
			close(r->mark[1]);
			return;
		}
	}
	close(r->mark[1]);
	regfree(&r->re);
	fflush(stdout);
}
