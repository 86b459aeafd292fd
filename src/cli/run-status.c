/* SPDX-License-Identifier: MIT */
/*
 * What traced processes tell `clrtrace run` at exit: how many records
 * each sink lost and why.  The profiler sends one datagram to an abstract
 * unix socket named in CLRTRACE_STATUS (sink.c): nothing on disk, which may
 * be the very thing that is full, no descriptor inherited by the program,
 * and no wait (run reads what came once the program has ended).
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "cli/run-status.h"
#include "common/status-msg.h"

/* Listen on a fresh abstract socket; the fd (or -errno), *ENV set to the
 * CLRTRACE_STATUS=@name entry for the program's environment. */
int run_status_listen(char **env)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	uint64_t rnd = 0;
	int fd, one = 1, n;

	*env = NULL;
	if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != sizeof(rnd))
		rnd ^= (uint64_t)getpid() << 32 ^ (uint64_t)(uintptr_t)&rnd;
	/* sun_path[0] = 0: abstract */
	n = snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1, "clrtrace-status-%d-%016" PRIx64, (int)getpid(), rnd);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&sa, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n)) < 0 ||
	    asprintf(env, "CLRTRACE_STATUS=@%s", sa.sun_path + 1) < 0) {
		int r = -errno;

		*env = NULL;
		close(fd);
		return r;
	}
	return fd;
}

/* Add REASON (control bytes made '?') to REASONS, a list of distinct ones (a reason for a
 * loss, or the name of a process left out). */
static void add_reason(char *reasons, size_t size, const char *reason, size_t len)
{
	char clean[160];
	size_t k = len < sizeof(clean) - 1 ? len : sizeof(clean) - 1, used = strlen(reasons);

	for (size_t i = 0; i < k; i++)
		clean[i] = (unsigned char)reason[i] < 0x20 || reason[i] == 0x7f ? '?' : reason[i];
	clean[k] = 0;
	for (const char *p = reasons; (p = strstr(p, clean)); p++)
		if ((p == reasons || p[-1] == ' ') && (p[k] == 0 || p[k] == ','))
			return; /* said already */
	snprintf(reasons + used, size - used, "%s%s", used ? ", " : "", clean);
}

/* Take one "clrtrace-left-out 1 PID LABEL\n": a process the program filter left out. */
static void parse_left_out(struct run_status *st, const char *msg)
{
	const char *label = strchr(msg + CT_STATUS_LEN(CT_LEFT_OUT_TAG), ' ');

	if (!label || !*++label)
		return;
	st->left_out++;
	add_reason(st->left_names, sizeof(st->left_names), label, strcspn(label, "\n"));
}

/* Take one "open\tPATH" line (LINE..NL): a trace file the process had open at exit, once. */
static void add_file(struct run_status *st, const char *line, const char *nl)
{
	const char *p = line + CT_STATUS_LEN(CT_STATUS_OPEN);
	size_t n = (size_t)(nl - p);

	if (n == 0 || p[0] != '/' || memchr(p, 0, n) || st->n_files >= (int)(sizeof(st->files) / sizeof(st->files[0])))
		return;
	for (int k = 0; k < st->n_files; k++)
		if (strlen(st->files[k]) == n && memcmp(st->files[k], p, n) == 0)
			return;
	st->files[st->n_files] = strndup(p, n);
	if (st->files[st->n_files])
		st->n_files++;
}

/* Take one report (common/status-msg.h). */
static void parse_report(struct run_status *st, char *msg, size_t len)
{
	char *line, *end = msg + len, *nl;

	msg[len] = 0;
	if (strncmp(msg, CT_LEFT_OUT_TAG, CT_STATUS_LEN(CT_LEFT_OUT_TAG)) == 0)
		parse_left_out(st, msg);
	if (strncmp(msg, CT_STATUS_TAG, CT_STATUS_LEN(CT_STATUS_TAG)) != 0)
		return;
	st->reports++;
	errno = 0;
	long pid = strtol(msg + CT_STATUS_LEN(CT_STATUS_TAG), &nl, 10);
	if (!errno && nl != msg + CT_STATUS_LEN(CT_STATUS_TAG) && *nl == ' ' && pid > 0 && pid <= INT32_MAX &&
	    st->n_pids < (int)(sizeof(st->pids) / sizeof(st->pids[0])))
		st->pids[st->n_pids++] = (int)pid;
	for (line = strchr(msg, '\n'); line && ++line < end; line = nl) {
		char *tab1, *tab2, *e;
		uint64_t lost;
		int kind;

		nl = memchr(line, '\n', (size_t)(end - line));
		if (!nl)
			break;
		if (strncmp(line, CT_STATUS_OPEN, CT_STATUS_LEN(CT_STATUS_OPEN)) == 0 &&
		    nl - line > (ptrdiff_t)CT_STATUS_LEN(CT_STATUS_OPEN)) {
			add_file(st, line, nl);
			continue;
		}
		if (strncmp(line, CT_STATUS_LEFT_OUT, CT_STATUS_LEN(CT_STATUS_LEFT_OUT)) == 0) {
			uint64_t k = strtoull(line + CT_STATUS_LEN(CT_STATUS_LEFT_OUT), NULL, 10);

			st->left_out_errors += k <= UINT64_MAX - st->left_out_errors ? k : 0;
			continue;
		}
		if (strncmp(line, CT_STATUS_REMOVED, CT_STATUS_LEN(CT_STATUS_REMOVED)) == 0) {
			uint64_t k = strtoull(line + CT_STATUS_LEN(CT_STATUS_REMOVED), NULL, 10);

			st->removed += k <= UINT64_MAX - st->removed ? k : 0;
			continue;
		}
		tab1 = memchr(line, '\t', (size_t)(nl - line));
		tab2 = tab1 ? memchr(tab1 + 1, '\t', (size_t)(nl - tab1 - 1)) : NULL;
		if (!tab2)
			continue;
		*tab2 = 0;
		kind = strcmp(tab1 + 1, "journal") == 0 ? RS_JOURNAL : strcmp(tab1 + 1, "stderr") == 0 ? RS_STDERR : RS_FILE;
		errno = 0;
		lost = strtoull(line, &e, 10);
		if (errno || e != tab1 || lost > UINT64_MAX - st->sink[kind].lost)
			continue;
		st->sink[kind].lost += lost;
		add_reason(st->sink[kind].reasons, sizeof(st->sink[kind].reasons), tab2 + 1, (size_t)(nl - tab2 - 1));
	}
}

/* Read every report that came, from processes of our own user (or root);
 * never waits. */
void run_status_collect(int fd, struct run_status *st)
{
	char buf[8192 + 1];
	union {
		struct cmsghdr h;
		char space[CMSG_SPACE(sizeof(struct ucred))];
	} ctl;

	memset(st, 0, sizeof(*st));
	if (fd < 0)
		return;
	for (;;) {
		struct iovec iov = { buf, sizeof(buf) - 1 };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = &ctl, .msg_controllen = sizeof(ctl) };
		struct cmsghdr *c;
		struct ucred cred = { .uid = (uid_t)-1 };
		ssize_t k = recvmsg(fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			break;
		for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS)
				memcpy(&cred, CMSG_DATA(c), sizeof(cred));
		if (cred.uid != getuid() && cred.uid != 0)
			continue; /* the name is visible to all: trust only our own */
		parse_report(st, buf, (size_t)k);
	}
}

/* Free what collect allocated. */
void run_status_done(struct run_status *st)
{
	for (int k = 0; k < st->n_files; k++)
		free(st->files[k]);
	st->n_files = 0;
}

/* "; N records lost: REASONS" when one kind of sink lost records, else
 * "; N records lost from the file (REASONS), M from the journal (…)". */
void run_status_text(const struct run_status *st, char *buf, size_t size)
{
	static const char *const names[_RS_MAX] = { "the file", "the journal", "stderr" };
	size_t used = 0;
	int kinds = 0;

	buf[0] = 0;
	for (int k = 0; k < _RS_MAX; k++)
		kinds += st->sink[k].lost > 0;
	for (int k = 0; k < _RS_MAX && used < size; k++) {
		int n;

		if (!st->sink[k].lost)
			continue;
		if (kinds == 1)
			n = snprintf(buf, size, "; %" PRIu64 " records lost: %s", st->sink[k].lost, st->sink[k].reasons);
		else
			n = snprintf(buf + used, size - used, "%s%" PRIu64 "%s from %s (%s)", used ? ", " : "; ",
				     st->sink[k].lost, used ? "" : " records lost", names[k], st->sink[k].reasons);
		if (n < 0)
			break;
		used += (size_t)n;
	}
}
