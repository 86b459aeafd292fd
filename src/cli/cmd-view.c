/* SPDX-License-Identifier: MIT */
/*
 * clrtrace view: the trace as a per-thread tree, each record indented by
 * its depth on its own thread.  By default the lines are grouped by thread,
 * printed at the end of the input under one header per thread (in order of
 * the thread's first line), so the time column rises within each group.
 * Memory does not grow with the number of threads beyond a small record
 * each: a thread's latest lines wait in a small buffer of its own, and all
 * such buffers together are held to GROUP_BUDGET bytes; past that (or past
 * GROUP_CHUNK for one thread) they go to an unnamed temporary file as
 * chunks, each thread's chunks linked in order (see DESIGN.md, "view's
 * groups").  A temporary file rather than a second pass over the input: the
 * input may be stdin or the journal, which cannot be read twice, and a
 * second pass would parse every record twice.  --interleaved (and
 * --follow, which has no end to wait for) streams in file (seq) order
 * instead, a header marking every switch of thread.  A begin whose end is
 * the thread's next shown record is printed as one line with its duration,
 * so a begin is held back until then; when interleaved, any other thread's
 * record releases it first, to keep the file order.  Exception filters
 * (--exception, --outcome) hold one thread's exception story until its
 * summary decides it (bounded, see STORY_MAX).
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "cli/args.h"
#include "cli/cli.h"
#include "cli/describe.h"
#include "cli/sites.h"
#include "cli/journal-source.h"
#include "cli/escape.h"
#include "cli/reader.h"
#include "common/record-names.h"
#include "common/util.h"

#define STORY_MAX 10000
#define GROUP_CHUNK (64u * 1024)        /* a thread's buffer spills past this */
#define GROUP_BUDGET (8u * 1024 * 1024) /* every thread's buffer together */

/* Escape codes of the vocabulary's colours; COLOR_NONE's is the reset. */
static const char *const colors[_COLOR_MAX] = {
	[COLOR_NONE] = "\033[0m", [COLOR_DIM] = "\033[2m", [COLOR_RED] = "\033[31m",
	[COLOR_BRIGHT_RED] = "\033[1;41;37m", [COLOR_GREEN] = "\033[32m", [COLOR_YELLOW] = "\033[33m",
	[COLOR_CYAN] = "\033[36m", [COLOR_BOLD] = "\033[1m", [COLOR_MAGENTA] = "\033[35m",
};

struct story {
	struct rec *recs;
	size_t n, cap;
	int64_t *open; /* exception ids still in flight */
	size_t n_open;
	bool matched;
};

struct vthread {
	bool has_pending;
	struct rec pending; /* a begin waiting for its thread's next record */
	struct story story;
	int64_t pid, tid;
	char *managed; /* managed ThreadID, for the header's name */
	int64_t managed_tid; /* its Thread.ManagedThreadId (-1: not seen) */
	char *name;    /* its Thread.Name as its records last said */
	bool listed;   /* grouped: in the viewer's order */
	char *tail;    /* grouped: its lines not spilled yet */
	size_t tail_len, tail_cap;
	int64_t first, last; /* offsets of its first and last spilled chunk; -1: none */
};

/* A chunk of a thread's lines in the spill file: this header, then LEN bytes. */
struct chunk {
	int64_t next; /* offset of the thread's next chunk; -1: none yet */
	uint64_t len;
};

struct viewer {
	/* filters */
	char **events;
	size_t n_events;
	int64_t *tids;
	size_t n_tids;
	const char *exception_glob;
	bool type_matched; /* an exception of the trace had a type -x matches */
	char **outcomes;
	size_t n_outcomes;
	double since, until; /* seconds from the first record; <0: none */
	bool color;
	bool raw; /* record text as it is, control characters and all */
	bool interleaved; /* file order with a header at each switch, not groups */
	bool throws;      /* --throws: every throw's story, not one block per error */
	bool by_error;    /* one block per error: not --throws, nor a story filter */
	/* state */
	int64_t t0;
	uint64_t last_thread;
	bool any_printed;
	struct u64map threads; /* pid<<32|tid -> struct vthread */
	struct u64map load_depth; /* pid<<40^span of an open load -> its depth+1 */
	struct vthread *holder; /* interleaved: the one thread holding a begin */
	struct vthread **order; /* grouped: threads in order of their first line */
	size_t n_order, cap_order;
	FILE *sink;             /* grouped: lines go through it to the thread CUR */
	struct vthread *cur;
	size_t held;            /* bytes of every thread's tail buffer */
	int spill_fd;           /* the spill file (unnamed), -1 until needed */
	uint64_t spill_end;
	bool spill_failed;      /* said once; the lines stay in memory */
	struct u64map names;   /* managed ThreadID -> name (malloc'd) */
	struct strbuf line;
	struct sites *sites;   /* throw sites' lines (made at the first stack) */
	struct u64map ex_error; /* pid<<32|exception id -> its error id + 1, until its summary */
	struct u64map errors;   /* pid<<32|error -> struct verror, until its exception.error */
};

/* What an error's block says beyond its exception.error record. */
struct verror {
	char *site;  /* where its first throw was: "at F() in FILE:line N" (stacks) */
	char *line;  /* and its source line, short: "Program.cs:111" */
	int64_t killed_tid; /* the thread of its exception.unhandled; -1: none */
};

static void verror_free(void *p)
{
	struct verror *e = p;

	if (!e)
		return;
	free(e->site);
	free(e->line);
	free(e);
}

/* Split a comma list into a malloc'd array of strdup'd items. */
static int split_list(const char *s, char ***ret, size_t *n)
{
	char *dup = strdup(s), *save = NULL;

	if (!dup)
		return -ENOMEM;
	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char **v = realloc(*ret, (*n + 1) * sizeof(*v));

		if (!v || !(v[*n] = strdup(t))) {
			if (v)
				*ret = v;
			free(dup);
			return -ENOMEM;
		}
		*ret = v;
		(*n)++;
	}
	free(dup);
	return 0;
}

/* Does R's event or category match one of the -e items? */
static bool event_selected(const struct viewer *v, const struct rec *r)
{
	if (!v->n_events)
		return true;
	for (size_t i = 0; i < v->n_events; i++) {
		if (fnmatch(v->events[i], r->event, 0) == 0)
			return true;
		if (r->cat >= 0 && strcmp(v->events[i], ct_categories[r->cat].name) == 0)
			return true;
	}
	return false;
}

/* Is R a trace.left_out of a type --exception matches (what the stories
 * shown leave out; left out, an error has no outcome to match)? */
static bool left_out_selected(const struct viewer *v, const struct rec *r)
{
	return r->ev == EV_TRACE_LEFT_OUT && v->exception_glob && !v->n_outcomes && jstr(r->j, "type") &&
	       args_type_match(v->exception_glob, jstr(r->j, "type"));
}

/* The filters that look at one record alone. */
static bool record_selected(const struct viewer *v, const struct rec *r)
{
	double t = r->ts >= 0 && v->t0 >= 0 ? (double)(r->ts - v->t0) / 1e9 : 0;
	bool tid_ok = !v->n_tids;

	for (size_t i = 0; i < v->n_tids; i++)
		tid_ok = tid_ok || v->tids[i] == r->tid;
	if (!tid_ok || (v->since >= 0 && t < v->since) || (v->until >= 0 && t > v->until))
		return false;
	if ((v->exception_glob || v->n_outcomes) && r->cat != CAT_EXCEPTIONS && r->cat != CAT_FRAMES &&
	    !left_out_selected(v, r))
		return false;
	return event_selected(v, r);
}

/* The name of managed thread MANAGED ("0x…" or NULL) from its thread.name
 * records, if it has been named. */
static const char *thread_name(const struct viewer *v, const char *managed)
{
	uint64_t id = managed ? strtoull(managed, NULL, 16) : 0;

	return id ? u64map_get(&v->names, id) : NULL;
}

/* Print record text to OUT: escaped, unless --raw. */
static void v_puts(const struct viewer *v, FILE *out, const char *s)
{
	if (v->raw)
		fputs(s ? s : "", out);
	else
		esc_fputs(s, out);
}

/* Print a thread's header line to OUT: its managed thread id (MANAGED_TID,
 * when >= 0) and NAME (may be NULL) as .NET knows them. */
static void print_header(const struct viewer *v, FILE *out, int64_t pid, int64_t tid, int64_t managed_tid,
			 const char *name)
{
	fprintf(out, "%s--- pid %" PRId64 " tid %" PRId64, v->color ? colors[COLOR_DIM] : "", pid, tid);
	if (managed_tid >= 0)
		fprintf(out, " managed %" PRId64, managed_tid);
	fputs(name ? " \"" : "", out);
	v_puts(v, out, name);
	fprintf(out, "%s ---%s\n", name ? "\"" : "", v->color ? colors[COLOR_NONE] : "");
}

/* An unnamed temporary file in $TMPDIR (else /tmp): an fd or -errno. */
static int spill_open(void)
{
	const char *dir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	_cleanup_free_ char *tmp = NULL;
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		return fd >= 0 ? fd : -errno;
	if (asprintf(&tmp, "%s/clrtrace-view.XXXXXX", dir) < 0)
		return -ENOMEM;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	unlink(tmp);
	return fd;
}

/* pwrite all of IOV[0..n) at OFF: 0 or -errno. */
static int pwritev_all(int fd, struct iovec *iov, int n, off_t off)
{
	while (n > 0) {
		ssize_t k = pwritev(fd, iov, n, off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -ENOSPC;
		off += k;
		for (; n > 0 && (size_t)k >= iov->iov_len; iov++, n--)
			k -= (ssize_t)iov->iov_len;
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + k;
			iov->iov_len -= (size_t)k;
		}
	}
	return 0;
}

/* Append D[0..n) to the spill file as T's next chunk: 0 or -errno (said
 * once; the caller keeps the lines in memory). */
static int chunk_write(struct viewer *v, struct vthread *t, const char *d, size_t n)
{
	struct chunk c = { .next = -1, .len = n };
	struct iovec iov[2] = { { &c, sizeof(c) }, { (void *)d, n } };
	int64_t off = (int64_t)v->spill_end;
	int r = 0;

	if (v->spill_failed)
		return -EIO;
	if (v->spill_fd < 0) {
		v->spill_fd = spill_open();
		r = v->spill_fd < 0 ? v->spill_fd : 0;
		v->spill_fd = r < 0 ? -1 : v->spill_fd;
	}
	if (r == 0 && v->spill_end > (uint64_t)INT64_MAX - sizeof(c) - n)
		r = -EFBIG;
	if (r == 0)
		r = pwritev_all(v->spill_fd, iov, 2, (off_t)off);
	if (r == 0 && t->last >= 0) { /* link it from the thread's last chunk */
		struct iovec l = { &off, sizeof(off) };

		r = pwritev_all(v->spill_fd, &l, 1, (off_t)t->last + (off_t)offsetof(struct chunk, next));
	}
	if (r < 0) {
		cli_error("view: cannot keep thread lines in a temporary file (TMPDIR): %s; keeping them in memory",
			  strerror(-r));
		v->spill_failed = true;
		return r;
	}
	if (t->first < 0)
		t->first = off;
	t->last = off;
	v->spill_end += sizeof(c) + n;
	return 0;
}

/* Move T's tail buffer to the spill file and free it. */
static void tail_spill(struct viewer *v, struct vthread *t)
{
	if (!t->tail_len || chunk_write(v, t, t->tail, t->tail_len) < 0)
		return;
	v->held -= t->tail_cap;
	free(t->tail);
	t->tail = NULL;
	t->tail_len = t->tail_cap = 0;
}

/* Add D[0..n) to T's lines: its tail buffer, spilled when it or all of
 * them together grow too large. */
static void group_add(struct viewer *v, struct vthread *t, const char *d, size_t n)
{
	if (t->tail_len && t->tail_len + n > GROUP_CHUNK)
		tail_spill(v, t);
	if (!t->tail_len && n >= GROUP_CHUNK && chunk_write(v, t, d, n) == 0)
		return;
	if (n > t->tail_cap - t->tail_len) {
		size_t cap = t->tail_cap ? t->tail_cap : 256;
		char *p;

		while (cap - t->tail_len < n && cap <= SIZE_MAX / 2)
			cap *= 2;
		if (cap - t->tail_len < n || !(p = realloc(t->tail, cap))) {
			if (!v->spill_failed)
				cli_error("view: out of memory for the lines of thread %" PRId64, t->tid);
			v->spill_failed = true;
			return;
		}
		v->held += cap - t->tail_cap;
		t->tail = p;
		t->tail_cap = cap;
	}
	memcpy(t->tail + t->tail_len, d, n);
	t->tail_len += n;
	if (v->held > GROUP_BUDGET && !v->spill_failed)
		for (size_t i = 0; i < v->n_order; i++)
			tail_spill(v, v->order[i]);
}

/* fopencookie write: the bytes go to the thread whose line it is. */
static ssize_t sink_write(void *cookie, const char *buf, size_t size)
{
	struct viewer *v = cookie;

	if (v->cur)
		group_add(v, v->cur, buf, size);
	return (ssize_t)size;
}

/* Copy T's spilled chunks to stdout, in order: 0 or -errno. */
static int chunks_print(struct viewer *v, const struct vthread *t)
{
	static char buf[GROUP_CHUNK];

	for (int64_t off = t->first; off >= 0;) {
		struct chunk c;
		uint64_t pos, room;

		/* our own file, but read back from disk: each chunk lies after its
		 * predecessor and within what was written */
		if ((uint64_t)off > v->spill_end - sizeof(c) ||
		    pread(v->spill_fd, &c, sizeof(c), off) != (ssize_t)sizeof(c))
			return -EIO;
		pos = (uint64_t)off + sizeof(c);
		room = v->spill_end - pos;
		if (c.len > room || (c.next >= 0 && (uint64_t)c.next < pos + c.len))
			return -EIO;
		for (uint64_t done = 0; done < c.len;) {
			size_t want = c.len - done < sizeof(buf) ? (size_t)(c.len - done) : sizeof(buf);
			ssize_t k = pread(v->spill_fd, buf, want, (off_t)(pos + done));

			if (k <= 0)
				return k < 0 ? -errno : -EIO;
			fwrite(buf, 1, (size_t)k, stdout);
			done += (uint64_t)k;
		}
		off = c.next;
	}
	return 0;
}

/* Where R's line goes: its thread's group, or stdout after a header. */
static FILE *line_out(struct viewer *v, const struct rec *r)
{
	struct vthread *t = v->interleaved || !v->sink ? NULL : u64map_get(&v->threads, thread_key(r));

	if (t && !t->listed) {
		if (v->n_order == v->cap_order) {
			size_t cap = v->cap_order ? 2 * v->cap_order : 64;
			struct vthread **o = reallocarray(v->order, cap, sizeof(*o));

			if (!o)
				t = NULL; /* said on stdout, ungrouped */
			else {
				v->order = o;
				v->cap_order = cap;
			}
		}
		if (t) {
			v->order[v->n_order++] = t;
			t->listed = true;
		}
	}
	if (t) {
		if (v->cur != t) {
			fflush(v->sink); /* the last line's bytes go to its thread */
			v->cur = t;
		}
		return v->sink;
	}
	if (!v->any_printed || thread_key(r) != v->last_thread)
		print_header(v, stdout, r->pid, r->tid, r->managed_tid,
			     r->thread_name ? r->thread_name : thread_name(v, r->thread));
	v->last_thread = thread_key(r);
	v->any_printed = true;
	return stdout;
}

/* Under a throw with a stack (category stacks), to OUT: where, "at F() in
 * FILE:line N". */
static void print_stack(struct viewer *v, FILE *out, const struct rec *r)
{
	char indent[16 + 2 * 200 + 8];

	if (!json_object_get(r->j, "stack"))
		return;
	if (!v->sites && !(v->sites = sites_new()))
		return;
	snprintf(indent, sizeof(indent), "%*s", 21 + 2 * (r->depth > 0 && r->depth < 200 ? (int)r->depth : 0) + 4, "");
	strbuf_reset(&v->line);
	if (sites_view(v->sites, r->j, indent, &v->line) && v->line.s)
		fputs(v->line.s, out);
}

/* The short name of a type: "InvalidDataException". */
static const char *short_type(const char *type)
{
	const char *dot = type ? strrchr(type, '.') : NULL;

	return dot ? dot + 1 : type ? type : "?";
}

/* The unhandled verdict of error R into B: "unhandled: T from F (FILE:N),
 * rethrown at 2 awaits, killed thread T". */
static void unhandled_verdict(struct strbuf *b, const struct rec *r, const struct verror *e)
{
	json_t *hops = json_object_get(r->j, "hops");
	int64_t n;

	strbuf_printf(b, "unhandled: %s", short_type(jstr2(r->j, "exception", "type")));
	if (jstr2(r->j, "origin", "function")) {
		strbuf_puts(b, " from ");
		dotnet_record_say(r->j, jstr2(r->j, "origin", "function"), b);
	}
	if (e && e->line)
		strbuf_printf(b, " (%s)", e->line);
	if ((n = jint(hops, "rethrow")) > 0)
		strbuf_printf(b, ", rethrown %" PRId64 " time%s", n, n == 1 ? "" : "s");
	if ((n = jint(hops, "await")) > 0)
		strbuf_printf(b, ", rethrown at %" PRId64 " await%s", n, n == 1 ? "" : "s");
	if ((n = jint(hops, "boundary")) > 0)
		strbuf_printf(b, ", raised again past %" PRId64 " native boundar%s", n, n == 1 ? "y" : "ies");
	strbuf_printf(b, ", killed thread %" PRId64, e && e->killed_tid >= 0 ? e->killed_tid : r->tid);
}

/* One line of an error's block to OUT: INDENT spaces, then B (record
 * text, escaped unless --raw); B is emptied. */
static void block_line(struct viewer *v, FILE *out, int indent, struct strbuf *b)
{
	fprintf(out, "%*s", indent, "");
	v_puts(v, out, b->s ? b->s : "");
	fputc('\n', out);
	strbuf_reset(b);
}

/* Under an error's line, to OUT: where it began, its hops, its fate. */
static void print_error_block(struct viewer *v, FILE *out, const struct rec *r)
{
	struct verror *e = u64map_del(&v->errors, ((uint64_t)(uint32_t)r->pid << 32) | (uint32_t)jint(r->j, "error"));
	int indent = 21 + 2 * (r->depth > 0 && r->depth < 200 ? (int)r->depth : 0) + 4;
	struct strbuf *b = &v->line;

	strbuf_reset(b);
	if (jstr2(r->j, "origin", "function")) {
		strbuf_puts(b, "from ");
		dotnet_record_say(r->j, jstr2(r->j, "origin", "function"), b);
		/* its tid is omitted when it is the record's own */
		int64_t tid = jint2(r->j, "origin", "tid") >= 0 ? jint2(r->j, "origin", "tid") : r->tid;

		if (tid >= 0)
			strbuf_printf(b, " on tid %" PRId64, tid);
		block_line(v, out, indent, b);
	}
	if (e && e->site) {
		strbuf_puts(b, e->site);
		block_line(v, out, indent + 2, b);
	}
	/* category requests: the ASP.NET Core request of its origin */
	if (jstr2(r->j, "request", "path") || jstr2(r->j, "request", "id")) {
		strbuf_puts(b, "in request");
		if (jstr2(r->j, "request", "method"))
			strbuf_printf(b, " %s", jstr2(r->j, "request", "method"));
		if (jstr2(r->j, "request", "path"))
			strbuf_printf(b, " %s", jstr2(r->j, "request", "path"));
		if (jstr2(r->j, "request", "id"))
			strbuf_printf(b, " (%s)", jstr2(r->j, "request", "id"));
		block_line(v, out, indent, b);
	}
	error_hops(b, r->j);
	strbuf_printf(b, "%s%" PRId64 " throw%s", b->len ? ", " : "", jint(r->j, "throws"), jint(r->j, "throws") == 1 ? "" : "s");
	block_line(v, out, indent, b);
	if (strcmp(jstr(r->j, "fate") ?: "", "unhandled") == 0)
		unhandled_verdict(b, r, e);
	else
		error_fate(b, r->j);
	block_line(v, out, indent, b);
	verror_free(e);
}

/* One block per error: learn what its block says from the records of its
 * throws (which carry "error"), and hide them; true: R is hidden. */
static bool error_hides(struct viewer *v, const struct rec *r)
{
	int64_t id = jint2(r->j, "exception", "id"), err = jint(r->j, "error");
	uint64_t key = ((uint64_t)(uint32_t)r->pid << 32) | (uint32_t)id;
	struct verror *e;
	void **slot;

	if (rec_is_error(r) || (r->cat != CAT_EXCEPTIONS && r->cat != CAT_FRAMES) || id < 0)
		return false;
	if (err < 0)
		err = (int64_t)(uintptr_t)u64map_get(&v->ex_error, key) - 1;
	if (err < 0)
		return false; /* no error of it: a trace of before exception.error */
	if (r->ev == EV_EXCEPTION_SUMMARY) {
		u64map_del(&v->ex_error, key);
		return true;
	}
	if ((slot = u64map_slot(&v->ex_error, key)))
		*slot = (void *)(uintptr_t)(err + 1);
	slot = u64map_slot(&v->errors, ((uint64_t)(uint32_t)r->pid << 32) | (uint32_t)err);
	if (slot && !*slot && (*slot = calloc(1, sizeof(struct verror))))
		((struct verror *)*slot)->killed_tid = -1;
	e = slot ? *slot : NULL;
	if (e && r->ev == EV_EXCEPTION_UNHANDLED)
		e->killed_tid = r->tid;
	if (e && r->ev == EV_EXCEPTION_THROW && err == id && json_object_get(r->j, "stack") &&
	    (v->sites || (v->sites = sites_new()))) {
		free(e->site);
		free(e->line);
		e->site = sites_site(v->sites, r->j);
		e->line = sites_line(v->sites, r->j);
	}
	return true;
}

/* Print one line for R (END: its end, the two printed as one span). */
static void print_line(struct viewer *v, const struct rec *r, const struct rec *end)
{
	const struct rec *last = end ? end : r;
	enum ct_color color = r->ev >= 0 && r->ev < _EV_MAX ? ct_events[r->ev].color : COLOR_NONE;
	const char *marker = end ? "- " : r->ph == PH_BEGIN ? "> " : r->ph == PH_END ? "< " : "* ";
	FILE *out = line_out(v, r);
	char dur[32];

	strbuf_reset(&v->line);
	if (v->by_error && rec_is_error(r)) /* its block says the rest */
		exception_text(&v->line, json_object_get(r->j, "exception"));
	else
		describe(&v->line, end && end->ev == r->ev && r->ev != EV_EXCEPTION_FILTER ? end : r);
	if (end && end->ev == EV_EXCEPTION_FILTER && jstr(end->j, "result"))
		strbuf_printf(&v->line, " -> %s", jstr(end->j, "result"));
	fprintf(out, "%12.6f %7" PRId64 " %*s%s%s",
		r->ts >= 0 && v->t0 >= 0 ? (double)(r->ts - v->t0) / 1e9 : 0.0, r->tid,
		(int)(2 * (r->depth > 0 && r->depth < 200 ? r->depth : 0)), "", marker,
		v->color && color ? colors[color] : "");
	v_puts(v, out, r->event);
	fputs(v->line.len ? " " : "", out);
	v_puts(v, out, v->line.s);
	if (last->dur_ns >= 0)
		fprintf(out, " (%s)", fmt_dur(dur, sizeof(dur), last->dur_ns));
	/* a load the runtime finished on another thread than its begin's:
	 * said on both threads' lines */
	if (last->begin_tid > 0) {
		if (r->tid == last->tid)
			fprintf(out, " [begun on tid %" PRId64 "]", last->begin_tid);
		else
			fprintf(out, " [ended on tid %" PRId64 "]", last->tid);
	}
	if (r->v > 1)
		fprintf(out, " [schema v%" PRId64 "]", r->v);
	fprintf(out, "%s\n", v->color && color ? colors[COLOR_NONE] : "");
	if (r->ev == EV_EXCEPTION_THROW)
		print_stack(v, out, r);
	else if (v->by_error && rec_is_error(r))
		print_error_block(v, out, r);
}

/* Get-or-create a thread's view state. */
static struct vthread *vthread_get(struct viewer *v, const struct rec *r)
{
	void **slot = u64map_slot(&v->threads, thread_key(r));

	struct vthread *t;

	if (slot && !*slot && (t = *slot = calloc(1, sizeof(struct vthread)))) {
		t->pid = r->pid;
		t->tid = r->tid;
		t->managed_tid = -1;
		t->first = t->last = -1;
	}
	t = slot ? *slot : NULL;
	if (!t)
		return NULL;
	if (r->thread && !t->managed)
		t->managed = strdup(r->thread);
	rec_thread_ident(r, &t->managed_tid, &t->name);
	return t;
}

/* Print a held-back begin as it is. */
static void flush_pending(struct viewer *v, struct vthread *t)
{
	if (!t || !t->has_pending)
		return;
	print_line(v, &t->pending, NULL);
	rec_done(&t->pending);
	t->has_pending = false;
}

/* Interleaved: release the begins other threads hold, to keep file order. */
static void flush_others(struct viewer *v, const struct vthread *self)
{
	if (v->interleaved && v->holder && v->holder != self)
		flush_pending(v, v->holder);
	v->holder = NULL;
}

/* Key of R's load span in load_depth. */
static uint64_t load_key(const struct rec *r)
{
	return ((uint64_t)(uint32_t)r->pid << 40) ^ (uint64_t)r->span;
}

/* A load's end R written on another thread than its begin (begin_tid):
 * its line on the thread that began it too, where the span ends, merged
 * with the begin if that thread holds it back. */
static void end_on_begin_thread(struct viewer *v, const struct rec *r)
{
	int64_t tid = r->begin_tid;
	struct vthread *a = u64map_get(&v->threads, ((uint64_t)(uint32_t)r->pid << 32) | (uint32_t)tid);
	uintptr_t depth = (uintptr_t)u64map_del(&v->load_depth, load_key(r));
	struct rec there;

	if (!a)
		return;
	if (a->has_pending && a->pending.span == r->span) {
		print_line(v, &a->pending, r);
		rec_done(&a->pending);
		a->has_pending = false;
		return;
	}
	if (!depth)
		return; /* its begin was not shown */
	flush_pending(v, a);
	there = *r;
	there.tid = tid;
	there.depth = (int64_t)depth - 1;
	there.thread = a->managed;
	there.managed_tid = a->managed_tid;
	there.thread_name = a->name;
	print_line(v, &there, NULL);
}

/* Is R a load's end on another thread than its begin, that -t and the
 * other filters would show on the thread that began it? */
static bool selected_where_begun(const struct viewer *v, const struct rec *r)
{
	struct rec there = *r;

	if (r->begin_tid <= 0)
		return false;
	there.tid = r->begin_tid;
	return record_selected(v, &there);
}

/* Show one selected record (steals R's JSON). */
static void show(struct viewer *v, struct rec *r)
{
	struct vthread *t = vthread_get(v, r);

	if (r->ev == EV_ASSEMBLY_LOAD || r->ev == EV_MODULE_LOAD) {
		if (r->ph == PH_BEGIN && r->span > 0) {
			void **slot = u64map_slot(&v->load_depth, load_key(r));

			if (slot)
				*slot = (void *)(uintptr_t)(r->depth + 1);
		} else if (r->begin_tid > 0) {
			end_on_begin_thread(v, r);
		} else if (r->ph == PH_END) {
			u64map_del(&v->load_depth, load_key(r));
		}
	}
	flush_others(v, t);

	if (t && t->has_pending) {
		if (r->ph == PH_END && r->span == t->pending.span && r->span >= 0) {
			print_line(v, &t->pending, r);
			rec_done(&t->pending);
			t->has_pending = false;
			rec_done(r);
			return;
		}
		flush_pending(v, t);
	}
	if (t && r->ph == PH_BEGIN) {
		t->pending = *r;
		t->has_pending = true;
		v->holder = t;
		return;
	}
	print_line(v, r, NULL);
	rec_done(r);
}

/* Grouped: print each thread's lines under its header, at the end. */
static void print_groups(struct viewer *v)
{
	if (v->sink)
		fflush(v->sink);
	v->cur = NULL;
	for (size_t i = 0; i < v->n_order; i++) {
		struct vthread *t = v->order[i];
		const char *name = t->name ? t->name : thread_name(v, t->managed);
		int r;

		print_header(v, stdout, t->pid, t->tid, t->managed_tid, name);
		r = chunks_print(v, t);
		if (r < 0)
			cli_error("view: cannot read back the lines of thread %" PRId64 " from the temporary file: %s",
				  t->tid, strerror(-r));
		if (t->tail_len)
			fwrite(t->tail, 1, t->tail_len, stdout);
	}
	v->n_order = 0;
}

/* Flush every held-back begin (end of input, or the writer is idle). */
static void flush_all(void *ud)
{
	struct viewer *v = ud;

	u64map_foreach(&v->threads, i)
		flush_pending(v, v->threads.vals[i]);
	fflush(stdout);
}

/* Does an exception (type, outcome) pass --exception and --outcome? */
static bool exception_matches(struct viewer *v, const char *type, const char *outcome)
{
	bool ok = !v->n_outcomes;

	if (v->exception_glob && (!type || !args_type_match(v->exception_glob, type)))
		return false;
	v->type_matched = true;
	for (size_t i = 0; i < v->n_outcomes; i++)
		ok = ok || (outcome && strcmp(v->outcomes[i], outcome) == 0);
	return ok;
}

/* Release (show or drop) a thread's buffered exception story. */
static void story_release(struct viewer *v, struct story *s, bool show_it)
{
	for (size_t i = 0; i < s->n; i++) {
		if (show_it)
			show(v, &s->recs[i]);
		else
			rec_done(&s->recs[i]);
	}
	s->n = 0;
	s->n_open = 0;
	s->matched = false;
}

/* Exception filters: buffer a thread's story until its summaries decide. */
static void story_add(struct viewer *v, struct rec *r)
{
	struct vthread *t = vthread_get(v, r);
	struct story *s = t ? &t->story : NULL;
	int64_t id = jint2(r->j, "exception", "id");

	if (!s) {
		rec_done(r);
		return;
	}
	if (r->ev == EV_EXCEPTION_THROW) {
		int64_t *o = realloc(s->open, (s->n_open + 1) * sizeof(*o));

		if (o) {
			s->open = o;
			s->open[s->n_open++] = id;
		}
	} else if (!s->n_open) {
		rec_done(r); /* a story that began before what we were shown */
		return;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct rec *n = realloc(s->recs, cap * sizeof(*n));

		if (!n) {
			rec_done(r);
			return;
		}
		s->recs = n;
		s->cap = cap;
	}
	s->recs[s->n++] = *r;
	if (r->ev == EV_EXCEPTION_SUMMARY) {
		s->matched = s->matched || exception_matches(v, jstr2(r->j, "exception", "type"), jstr(r->j, "outcome"));
		for (size_t i = 0; i < s->n_open; i++)
			if (s->open[i] == id) {
				s->open[i] = s->open[--s->n_open];
				break;
			}
		if (!s->n_open)
			story_release(v, s, s->matched);
	} else if (s->n >= STORY_MAX) {
		story_release(v, s, true);
	}
}

/* At the end: stories without a summary (the process died): outcome unknown. */
static void stories_finish(struct viewer *v)
{
	u64map_foreach(&v->threads, i) {
		struct vthread *t = v->threads.vals[i];
		bool match = false;

		for (size_t k = 0; k < t->story.n; k++)
			if (t->story.recs[k].ev == EV_EXCEPTION_THROW)
				match = match || exception_matches(v, jstr2(t->story.recs[k].j, "exception", "type"), "unknown");
		story_release(v, &t->story, match);
	}
}

/* Learn thread names as they go by. */
static void learn(struct viewer *v, const struct rec *r)
{
	const char *id = jstr2(r->j, "target", "id"), *name = jstr2(r->j, "target", "name");
	void **slot;

	if (v->t0 < 0 && r->ts >= 0)
		v->t0 = r->ts;
	if (r->ev != EV_THREAD_NAME || !id || !name)
		return;
	slot = u64map_slot(&v->names, strtoull(id, NULL, 16));
	if (slot) {
		free(*slot);
		*slot = strdup(name);
	}
}

/* Free a thread's view state. */
static void vthread_free(void *p)
{
	struct vthread *t = p;

	if (!t)
		return;
	rec_done(&t->pending);
	story_release(NULL, &t->story, false);
	free(t->story.recs);
	free(t->story.open);
	free(t->tail);
	free(t->managed);
	free(t->name);
	free(t);
}

static const char view_help[] =
	"Usage: clrtrace view [OPTIONS] TRACE...\n"
	"       clrtrace view [OPTIONS] --journal|--journal-dir DIR [FIELD=VALUE...]\n\n"
	"Show a trace as a per-thread tree, indented by span nesting.  Lines are\n"
	"grouped by thread: one header per thread (--- pid P tid T managed M \"name\"\n"
	"---: the OS thread id, then Environment.CurrentManagedThreadId and\n"
	"Thread.Name once the trace has them), in order of the thread's first\n"
	"line, its records under it in file order, so the time column rises within\n"
	"each group.  Grouped output appears when the\n"
	"input ends; --interleaved and --follow stream in file order instead.\n\n"
	TRACE_HELP "\n"
	"Columns: seconds since the first record, OS thread id, then a symbol:\n"
	"  *  an instant event\n"
	"  >  a span begins (its end comes later, indented one step less)\n"
	"  <  a span ends (with its duration)\n"
	"  -  a whole span on one line: its begin and end, with its duration\n"
	"An end the runtime delivered on another thread than its begin (a load a\n"
	"waiting thread finished) is shown on the thread it came on, with \"[begun on\n"
	"tid N]\", and on the thread that began it, with \"[ended on tid M]\".\n\n"
	"  -e, --events LIST       only these events or categories (comma list; globs: exception.*)\n"
	"  -t, --tid LIST          only these OS thread ids\n"
	"  -x, --exception GLOB    only exception stories whose type matches (System.IO.*)\n"
	"  -o, --outcome LIST      only exception stories with these outcomes\n"
	"                          (caught,unhandled,swallowed,superseded,rethrown,unknown)\n"
	"      --throws            every throw's story, as traces without exception.error\n"
	"                          show them (default with exception.error: one block per\n"
	"                          error: its origin, hops, fate and handler)\n"
	"  -S, --since SECONDS     skip records earlier than SECONDS after the first\n"
	"  -U, --until SECONDS     skip records later than SECONDS after the first\n"
	"  -i, --interleaved       all threads in file (seq) order, a header at each switch\n"
	"  -f, --follow            keep reading as the file grows (like tail -f; interleaved)\n"
	"      --raw               record text as it is (default: control characters and\n"
	"                          invalid UTF-8 escaped as \\n, \\e, \\x9b)\n"
	"      --color=WHEN        auto (default: on a terminal, unless NO_COLOR is set), always, never\n"
	"  -h, --help              this text\n" JOURNAL_HELP;

/* What the command line asked for, beyond the viewer's own settings. */
struct view_args {
	struct journal_opts jo;
	const char *color;
	char **tids;
	size_t n_tids;
	bool follow;
};

/* Parse one option into V and A; <0: stop (status in *STATUS). */
static int view_option(struct viewer *v, struct view_args *a, int opt, char **argv, int *status)
{
	switch (opt) {
	case 'e':
		return args_events("view", "--events", optarg) < 0 ? -EINVAL : split_list(optarg, &v->events, &v->n_events);
	case 't':
		return args_numbers("view", "--tid", optarg) < 0 ? -EINVAL : split_list(optarg, &a->tids, &a->n_tids);
	case 'x':
		v->exception_glob = optarg;
		return args_glob("view", "--exception", optarg) < 0 ? -EINVAL : 0;
	case 'o':
		return args_words("view", "--outcome", optarg, ct_outcome_table) < 0 ? -EINVAL :
			split_list(optarg, &v->outcomes, &v->n_outcomes);
	case 'S':
	case 'U':
		return args_seconds("view", opt == 'S' ? "--since" : "--until", optarg, opt == 'S' ? &v->since : &v->until);
	case 'i':
		v->interleaved = true;
		return 0;
	case 'f':
		a->follow = true;
		return 0;
	case 'C':
		a->color = optarg;
		return 0;
	case 'R':
		v->raw = true;
		return 0;
	case 'T':
		v->throws = true;
		return 0;
	case 'h':
		fputs(view_help, stdout);
		*status = 0;
		return -ECANCELED;
	default:
		if (journal_opt(&a->jo, opt, optarg))
			return 0;
		args_getopt_error("view", opt, argv);
		return -EINVAL;
	}
}

/* Parse the command line into V and A; <0: stop (status in *STATUS). */
static int view_parse(struct viewer *v, struct view_args *a, int argc, char **argv, int *status)
{
	static const struct option opts[] = {
		{ "events", required_argument, NULL, 'e' },
		{ "tid", required_argument, NULL, 't' },
		{ "exception", required_argument, NULL, 'x' },
		{ "outcome", required_argument, NULL, 'o' },
		{ "since", required_argument, NULL, 'S' },
		{ "until", required_argument, NULL, 'U' },
		{ "interleaved", no_argument, NULL, 'i' },
		{ "follow", no_argument, NULL, 'f' },
		{ "color", required_argument, NULL, 'C' },
		{ "colour", required_argument, NULL, 'C' },
		{ "raw", no_argument, NULL, 'R' },
		{ "throws", no_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		JOURNAL_LONG_OPTIONS,
		{ 0 },
	};
	int opt;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":e:t:x:o:S:U:ifhu:", opts, NULL)) != -1)
		if (view_option(v, a, opt, argv, status) < 0)
			return -EINVAL;
	if (!a->jo.journal && args_files("view", argc, argv, optind) < 0)
		return -EINVAL;
	if (color_choice(a->color, STDOUT_FILENO, &v->color) < 0) {
		cli_error("view: --color wants auto, always or never, not '%s'", a->color);
		return -EINVAL;
	}
	v->interleaved = v->interleaved || a->follow;
	/* a story filter or a choice of events asks for the records themselves */
	v->by_error = !v->throws && !v->exception_glob && !v->n_outcomes && !v->n_events;
	v->tids = calloc(a->n_tids + 1, sizeof(*v->tids));
	for (size_t i = 0; v->tids && i < a->n_tids; i++) {
		char *end = NULL;

		v->tids[v->n_tids++] = strtoll(a->tids[i], &end, 10);
		if (!end || *end) {
			cli_error("view: --tid wants thread ids, not '%s'", a->tids[i]);
			return -EINVAL;
		}
	}
	return v->tids ? 0 : -ENOMEM;
}

/* Read every record, filter it and show it (or hold its story). */
static int view_records(struct viewer *v, struct rd *rd)
{
	struct rec rec;
	int r;

	if (!v->interleaved &&
	    !(v->sink = fopencookie(v, "w", (cookie_io_functions_t){ .write = sink_write }))) {
		cli_error("view: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	rd_set_idle(rd, flush_all, v);
	while ((r = rd_record(rd, &rec)) > 0) {
		learn(v, &rec);
		if (v->by_error && error_hides(v, &rec)) {
			rec_done(&rec);
		} else if (!record_selected(v, &rec)) {
			if (selected_where_begun(v, &rec))
				end_on_begin_thread(v, &rec);
			rec_done(&rec);
		} else if ((v->exception_glob || v->n_outcomes) && rec.ev != EV_TRACE_LEFT_OUT)
			story_add(v, &rec);
		else
			show(v, &rec);
	}
	if (r < 0)
		cli_error("view: %s: %s", rd_name(rd), rd_strerror(rd, r));
	stories_finish(v);
	flush_all(v);
	print_groups(v);
	fflush(stdout);
	return r;
}

/* Free what the viewer and the arguments hold. */
static void view_free(struct viewer *v, struct view_args *a)
{
	for (size_t i = 0; i < a->n_tids; i++)
		free(a->tids[i]);
	free(a->tids);
	for (size_t i = 0; i < v->n_events; i++)
		free(v->events[i]);
	free(v->events);
	for (size_t i = 0; i < v->n_outcomes; i++)
		free(v->outcomes[i]);
	free(v->outcomes);
	free(v->tids);
	free(v->order);
	v->cur = NULL;
	if (v->sink)
		fclose(v->sink);
	if (v->spill_fd >= 0)
		close(v->spill_fd);
	u64map_done(&v->threads, vthread_free);
	u64map_done(&v->load_depth, NULL);
	u64map_done(&v->names, free);
	u64map_done(&v->ex_error, NULL);
	u64map_done(&v->errors, verror_free);
	strbuf_free(&v->line);
	sites_free(v->sites);
}

int cmd_view(int argc, char **argv)
{
	struct viewer v = { .since = -1, .until = -1, .t0 = -1, .spill_fd = -1 };
	struct view_args a = { 0 };
	struct rd *rd = NULL;
	int r, status = EXIT_USAGE;

	if (view_parse(&v, &a, argc, argv, &status) < 0)
		goto out;
	if (a.jo.journal)
		r = journal_open(&rd, &a.jo, argv + optind, argc - optind, a.follow, "view");
	else
		r = rd_open(&rd, "view", argv + optind, (size_t)(argc - optind), a.follow);
	if (r < 0) {
		status = a.jo.journal && r == -EINVAL ? EXIT_USAGE : 1;
		goto out;
	}
	r = view_records(&v, rd);
	rd_warn_summary(rd);
	if (v.exception_glob && !v.type_matched) {
		_cleanup_free_ char *q = esc_strdup(v.exception_glob);

		cli_error("view: --exception '%s' matches no exception type in %s", q ? q : "?", rd_label(rd));
	}
	status = r < 0 || rd_bad(rd) ? 1 : 0;
out:
	rd_free(rd);
	view_free(&v, &a);
	return status;
}
