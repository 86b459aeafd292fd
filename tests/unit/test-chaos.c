/* SPDX-License-Identifier: MIT */
/*
 * Allocation failure (chaos.h) in the trace reader (src/cli/reader.c) over
 * a fixture trace, and in the merge of a dead writer's FILE.<pid>.pending
 * (src/common/pending.c): each allocation fails in turn, and each run
 * must end with -ENOMEM and nothing half done, or with the whole result,
 * and leave nothing allocated.  (The exception machine's runs are in
 * test-machine.)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/reader.h"
#include "common/pending.h"
#include "common/util.h"
#include "chaos.h"
#include "dead-writer.h"
#include "unit.h"

/* The CLI's voice (clrtrace.c), for the reader's one-line errors. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("clrtrace: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* --- the reader ------------------------------------------------------------ */

struct read_case {
	char *path;
	long records, bad; /* what a whole read gives */
};

/* Read the whole trace: 0, or a negative errno; *N records, *BAD lines. */
static int read_all(const char *path, long *n, long *bad)
{
	char *ops[] = { (char *)path };
	struct rd *r = NULL;
	struct rec rec;
	int k;

	*n = *bad = 0;
	k = rd_open(&r, "chaos", ops, 1, false);
	if (k < 0)
		return k;
	while ((k = rd_record(r, &rec)) > 0) {
		(*n)++;
		rec_done(&rec);
	}
	*bad = (long)rd_bad(r);
	rd_free(r);
	return k;
}

static bool chaos_read(void *ud)
{
	const struct read_case *c = ud;
	long n, bad;
	int k = read_all(c->path, &n, &bad);

	if (k == -ENOMEM && chaos_failed())
		return true;
	return k == 0 && n == c->records && bad == c->bad;
}

static void test_reader(const char *srcdir)
{
	struct read_case c;
	int k;

	if (asprintf(&c.path, "%s/tests/golden/sample.jsonl", srcdir) < 0)
		return;
	k = read_all(c.path, &c.records, &c.bad);
	CHECK(k == 0 && c.records > 100, "the reader reads %s: %ld records (%s)", c.path, c.records,
	      k < 0 ? strerror(-k) : "ok");
	failures += chaos_each("allocation failure, the reader", chaos_read, &c, 100000);
	free(c.path);
}

/* --- the pending merge ------------------------------------------------------ */

/* A writer's mirror of TRACE holding the records 3..8 and 10 (9 was
 * numbered and never copied: a gap), the trace holding 1 and 2, the
 * writer gone.  Returns its pid, or -1. */
static int gap_writer(const char *trace)
{
	static const uint64_t seqs[] = { 3, 4, 5, 6, 7, 8, 10, 0 };
	char line[256];
	int pid = dead_writer(trace, seqs);
	FILE *f = pid > 0 ? fopen(trace, "a") : NULL;

	for (uint64_t s = 1; f && s <= 2; s++) {
		rec_line(line, sizeof(line), s, pid);
		fprintf(f, "%s\n", line);
	}
	if (f)
		fclose(f);
	return f ? pid : -1;
}

/* The seqs of TRACE's lines and its last event, as "1 2 3 ... 10 x|trace.dropped". */
static void trace_shape(const char *trace, char *out, size_t n)
{
	FILE *f = fopen(trace, "r");
	char line[512], *p;
	size_t len = 0;

	out[0] = 0;
	while (f && fgets(line, sizeof(line), f) && len < n) {
		p = strstr(line, "\"seq\":");
		len += (size_t)snprintf(out + len, n - len, "%s%s%s", len ? " " : "", p ? "" : "?",
					strstr(line, "trace.dropped") ? "dropped:" : "");
		if (p && len < n)
			len += (size_t)snprintf(out + len, n - len, "%llu", strtoull(p + 6, NULL, 10));
	}
	if (f)
		fclose(f);
}

/* The mirrors in DIR (REMOVE: remove every file, then DIR). */
static int mirrors(const char *dir, bool remove)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[512];
	int n = 0;

	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		n += strstr(e->d_name, ".pending") != NULL;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (remove)
			unlink(path);
	}
	if (d)
		closedir(d);
	if (remove)
		rmdir(dir);
	return d ? n : -1;
}

struct merge_case {
	char whole[512];   /* trace_shape of a whole merge */
	int records;       /* what pending_recover returns then */
	int said_enomem;
};

static void say(void *ud, const char *pending, const char *why, int error)
{
	struct merge_case *c = ud;

	if (error == 1 && strstr(why, strerror(ENOMEM)))
		c->said_enomem++;
}

/* One merge: a new trace and mirror, pending_recover, then the checks:
 * the whole result, or -ENOMEM (or -EBADMSG that said ENOMEM) with the
 * trace as it was and the mirror left for a later merge, which then
 * gives the whole result. */
static bool chaos_merge(void *ud)
{
	struct merge_case *c = ud;
	char dir[] = "/tmp/test-chaos-pending.XXXXXX", trace[64], shape[512];
	bool clean = false;
	int n, fd;

	chaos_pause();
	if (!mkdtemp(dir)) {
		chaos_resume();
		return false;
	}
	snprintf(trace, sizeof(trace), "%s/t.jsonl", dir);
	fd = open(trace, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		goto out;
	close(fd);
	if (gap_writer(trace) < 0)
		goto out;
	c->said_enomem = 0;
	chaos_resume();
	n = pending_recover(trace, NULL, say, c);
	chaos_pause();
	trace_shape(trace, shape, sizeof(shape));
	if (n == c->records)
		clean = strcmp(shape, c->whole) == 0 && mirrors(dir, false) == 0;
	else if (chaos_failed() && (n == -ENOMEM || (n == -EBADMSG && c->said_enomem))) {
		clean = strcmp(shape, "1 2") == 0 && mirrors(dir, false) == 1;
		/* and the mirror merges later */
		n = pending_recover(trace, NULL, NULL, NULL);
		trace_shape(trace, shape, sizeof(shape));
		clean = clean && n == c->records && strcmp(shape, c->whole) == 0;
	}
	if (!clean && getenv("CHAOS_DEBUG"))
		printf("   unclean: %d, said ENOMEM %d, trace %s, %d mirrors\n", n, c->said_enomem, shape, mirrors(dir, false));
out:
	mirrors(dir, true);
	chaos_resume();
	return clean;
}

static void test_merge(void)
{
	struct merge_case c = { 0 };
	char dir[] = "/tmp/test-chaos-pending.XXXXXX", trace[64];
	int fd;

	if (!mkdtemp(dir))
		return;
	snprintf(trace, sizeof(trace), "%s/t.jsonl", dir);
	fd = open(trace, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
	CHECK(gap_writer(trace) > 0, "a writer made its mirror and died");
	c.records = pending_recover(trace, NULL, NULL, NULL);
	trace_shape(trace, c.whole, sizeof(c.whole));
	CHECK(c.records == 8 && strcmp(c.whole, "1 2 3 4 5 6 7 8 10 dropped:11") == 0,
	      "the merge appends 3..8, 10 and trace.dropped (%d: %s)", c.records, c.whole);
	mirrors(dir, true);
	failures += chaos_each("allocation failure, the pending merge", chaos_merge, &c, 100000);
}

int main(void)
{
	const char *srcdir = getenv("top_srcdir");
	int err = dup(2), null = open("/dev/null", O_WRONLY | O_CLOEXEC);

	/* the reader's one-line errors, run after run */
	if (null >= 0)
		dup2(null, 2);
	test_reader(srcdir ? srcdir : ".");
	test_merge();
	if (err >= 0)
		dup2(err, 2);
	printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
	return failures ? 1 : 0;
}
