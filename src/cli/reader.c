/* SPDX-License-Identifier: MIT */
/*
 * The one line reader of the CLI: reads a trace in 64 KiB blocks, hands
 * out one line at a time (bounded length), parses records leniently and
 * reports bad lines with their number.  Never loads a file whole.  A trace
 * may be several files (trace-set.c: the operands, rotated sets), read one
 * after the other, a .zst decompressed as it is read (zstd-lazy.c); line
 * numbers run on across the files and rd_where() tells a line's file.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/escape.h"
#include "cli/reader.h"
#include "cli/trace-set.h"
#include "common/strtable.h"
#include "common/util.h"
#include "common/zstd-lazy.h"

#define RD_BLOCK (64u << 10)
#define RD_MAX_WARN 20
#define RD_POLL_NS (200 * 1000 * 1000L)

struct rd {
	int fd;
	bool close_fd, follow, eof, skipping;
	const char *name;       /* the file being read ("<stdin>") */
	char *label;            /* the whole input, for summaries */
	struct set_file *files; /* what to read, in order */
	size_t n_files, cur;    /* files[cur] is being read */
	struct zstd_in *zin;    /* files[cur] is compressed */
	char errbuf[256];
	char *buf;
	size_t cap, len, pos; /* data is buf[pos..len) */
	uint64_t lineno, bad, warned;
	off_t offset;
	void (*idle)(void *);
	void *idle_ud;
	const struct rd_source *src_ops; /* not NULL: lines come from src */
	void *src;
	/* the type, message and hresult of each exception.throw (pid<<32|id)
	 * until its summary, which names it by id only (rec_complete), and
	 * their size */
	struct u64map throws;
	size_t throws_bytes;
};

/* Throws kept for their summaries, and their bytes; past either a
 * summary shows its id only. */
#define THROWS_KEPT 65536
#define THROWS_BYTES (16u << 20)

static ssize_t fill(struct rd *r);

/* The display name of file F. */
static const char *file_name(const struct set_file *f)
{
	return strcmp(f->path, "-") == 0 ? "<stdin>" : f->path;
}

/* Close the file being read. */
static void file_close(struct rd *r)
{
	if (r->close_fd)
		close(r->fd);
	r->close_fd = false;
	r->fd = -1;
	zstd_in_free(r->zin);
	r->zin = NULL;
}

/* Open files[I]: its .zst or plain twin when it is gone or cannot be
 * decompressed (alt); the buffer starts empty. */
static int file_open(struct rd *r, size_t i)
{
	struct set_file *f = &r->files[i];
	bool zst = f->zst;
	const char *path = f->path;
	int fd;

	file_close(r);
	r->cur = i;
	r->name = file_name(f);
	f->first_line = r->lineno;
	r->len = r->pos = 0;
	r->offset = 0;
	r->skipping = false;
	if (strcmp(path, "-") == 0) {
		r->fd = STDIN_FILENO;
		return 0;
	}
	if (zst && f->alt && !zstd_can_decompress()) {
		path = f->alt;
		zst = false;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && f->alt && path != f->alt) { /* compressed meanwhile */
		path = f->alt;
		zst = !zst;
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0)
		return -errno;
	r->name = path;
	r->fd = fd;
	r->close_fd = true;
	return zst ? zstd_in_new(&r->zin) : 0;
}

/* Open the N operands OPS (see reader.h). */
int rd_open(struct rd **ret, const char *cmd, char *const *ops, size_t n, bool follow)
{
	struct rd *r = calloc(1, sizeof(*r));
	int k;

	if (!r) {
		cli_error("%s: out of memory", cmd);
		return -ENOMEM;
	}
	r->fd = -1;
	k = trace_set_expand(cmd, ops, n, &r->files, &r->n_files);
	if (k < 0) {
		free(r);
		return k;
	}
	r->follow = follow;
	if (n == 1 && strcmp(ops[0], "-") == 0)
		r->label = strdup("<stdin>");
	else if (asprintf(&r->label, "%s%s", ops[0], n > 1 ? " ..." : "") < 0)
		r->label = NULL;
	r->cap = RD_BLOCK;
	r->buf = malloc(r->cap + 1);
	if (!r->label || !r->buf) {
		rd_free(r);
		cli_error("%s: out of memory", cmd);
		return -ENOMEM;
	}
	k = file_open(r, 0);
	if (k == 0 && r->zin) { /* a .zst that is not: said before anything is read */
		ssize_t got = fill(r);

		k = got < 0 ? (int)got : 0;
	}
	if (k < 0) {
		_cleanup_free_ char *q = esc_strdup(r->name);

		cli_error("%s: %s: %s", cmd, q ? q : "?", rd_strerror(r, k));
		rd_free(r);
		return k;
	}
	*ret = r;
	return 0;
}

/* A reader over a second source of lines (see reader.h). */
int rd_open_source(struct rd **ret, const char *name, const struct rd_source *ops, void *src, bool follow)
{
	struct rd *r = calloc(1, sizeof(*r));

	if (r)
		r->name = r->label = strdup(name);
	if (!r || !r->label) {
		free(r);
		ops->done(src);
		return -ENOMEM;
	}
	r->fd = -1;
	r->follow = follow;
	r->src_ops = ops;
	r->src = src;
	*ret = r;
	return 0;
}

/* Next line of a second source; in follow mode waits for more. */
static int source_line(struct rd *r, const char **line, size_t *len, bool *partial)
{
	for (;;) {
		int k = r->src_ops->next(r->src, line, len);

		if (k > 0) {
			r->lineno++;
			*partial = false;
		}
		if (k != 0 || !r->follow)
			return k;
		if (r->idle)
			r->idle(r->idle_ud);
		k = r->src_ops->wait(r->src);
		if (k != 0)
			return k < 0 ? k : 0;
	}
}

static void json_free(void *j)
{
	json_decref(j);
}

/* Close and free a reader; NULL-safe. */
struct rd *rd_free(struct rd *r)
{
	if (!r)
		return NULL;
	file_close(r);
	if (r->src_ops)
		r->src_ops->done(r->src);
	trace_set_free(r->files, r->n_files);
	u64map_done(&r->throws, json_free);
	free(r->buf);
	free(r->label);
	free(r);
	return NULL;
}

/* In follow mode, called each time the reader catches up, before waiting. */
void rd_set_idle(struct rd *r, void (*fn)(void *), void *userdata)
{
	r->idle = fn;
	r->idle_ud = userdata;
}

uint64_t rd_lineno(const struct rd *r) { return r->lineno; }
const char *rd_name(const struct rd *r) { return r->name; }
const char *rd_label(const struct rd *r) { return r->label; }

/* Which file LINE (of the whole input) is in, and its line there. */
void rd_where(const struct rd *r, uint64_t line, const char **name, uint64_t *file_line)
{
	size_t lo = 0, hi = r->files && line > 0 ? r->cur + 1 : 0;

	if (hi == 0) { /* a second source, or no line */
		*name = line > 0 ? r->name : r->label;
		*file_line = line;
		return;
	}
	while (hi - lo > 1) { /* the last file that starts before LINE */
		size_t mid = lo + (hi - lo) / 2;

		if (r->files[mid].first_line < line)
			lo = mid;
		else
			hi = mid;
	}
	*name = lo == r->cur ? r->name : file_name(&r->files[lo]);
	*file_line = line - r->files[lo].first_line;
}

/* What error ERR of reading R was, in words. */
const char *rd_strerror(struct rd *r, int err)
{
	if (err == -EBADMSG && zstd_in_error(r->zin)) {
		snprintf(r->errbuf, sizeof(r->errbuf), "not zstd data, or damaged: %s", zstd_in_error(r->zin));
		return r->errbuf;
	}
	if (err == -ENOSYS) /* only zstd_in_new says that */
		return "a zstd-compressed file, and libzstd (libzstd.so.1) cannot be loaded to read it";
	return strerror(-err);
}
uint64_t rd_bad(const struct rd *r) { return r->bad; }

/* "clrtrace: NAME:LINE: message" on stderr; after RD_MAX_WARN only counted. */
void rd_warn(struct rd *r, uint64_t line, const char *fmt, ...)
{
	_cleanup_free_ char *msg = NULL;
	const char *name;
	va_list ap;

	if (r->warned++ >= RD_MAX_WARN)
		return;
	rd_where(r, line, &name, &line);
	fprintf(stderr, "clrtrace: %s:%" PRIu64 ": ", name, line);
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	esc_fputs(msg ? msg : "(out of memory)", stderr); /* may quote the line */
	fputc('\n', stderr);
}

/* A record delivered with a value out of range: counted as a bad line. */
void rd_mark_bad(struct rd *r)
{
	r->bad++;
}

/* Say how many warnings were not shown. */
void rd_warn_summary(struct rd *r)
{
	if (r->warned > RD_MAX_WARN)
		fprintf(stderr, "clrtrace: %s: %" PRIu64 " more problems not shown\n", r->label,
			r->warned - RD_MAX_WARN);
}

/* Wait for a followed file to grow; rewinds if it was truncated. */
static void follow_wait(struct rd *r)
{
	struct timespec ts = { 0, RD_POLL_NS };
	struct stat st;

	if (r->idle)
		r->idle(r->idle_ud);
	nanosleep(&ts, NULL);
	if (r->close_fd && !r->zin && fstat(r->fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size < r->offset) {
		(void)lseek(r->fd, 0, SEEK_SET);
		r->offset = 0;
		r->len = r->pos = 0;
		r->skipping = false;
	}
}

/* Read more data into the buffer: >0 bytes, 0 at end, negative errno. */
static ssize_t fill(struct rd *r)
{
	ssize_t n;

	if (r->pos > 0) {
		memmove(r->buf, r->buf + r->pos, r->len - r->pos);
		r->len -= r->pos;
		r->pos = 0;
	}
	if (r->cap - r->len < RD_BLOCK / 2) {
		size_t cap = r->cap * 2;
		char *b;

		if (cap > RD_MAX_LINE + RD_BLOCK)
			cap = RD_MAX_LINE + RD_BLOCK;
		b = cap > r->cap ? realloc(r->buf, cap + 1) : NULL;
		if (b) {
			r->buf = b;
			r->cap = cap;
		}
	}
	if (r->len >= r->cap)
		return -ENOBUFS;
	if (r->zin) {
		n = zstd_in_read(r->zin, r->fd, r->buf + r->len, r->cap - r->len);
		if (n < 0)
			return n;
	} else {
		do
			n = read(r->fd, r->buf + r->len, r->cap - r->len);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			return -errno;
	}
	r->len += (size_t)n;
	r->offset += n;
	return n;
}

/* Next raw line (see reader.h). */
int rd_line(struct rd *r, const char **line, size_t *len, bool *partial)
{
	if (r->src_ops)
		return source_line(r, line, len, partial);
	for (;;) {
		char *start = r->buf + r->pos;
		char *nl = memchr(start, '\n', r->len - r->pos);
		ssize_t n;

		if (nl) {
			size_t l = (size_t)(nl - start);

			r->pos += l + 1;
			r->lineno++;
			if (r->skipping) {
				r->skipping = false;
				continue;
			}
			if (l > 0 && start[l - 1] == '\r')
				l--;
			start[l] = '\0';
			*line = start;
			*len = l;
			*partial = false;
			return 1;
		}
		if (r->skipping) {
			r->pos = r->len; /* discard the rest of an over-long line */
		} else if (r->len - r->pos >= RD_MAX_LINE) {
			rd_warn(r, r->lineno + 1, "line longer than %u MiB; skipped", RD_MAX_LINE >> 20);
			r->bad++;
			r->skipping = true;
			r->pos = r->len;
		}
		n = fill(r);
		if (n < 0 && n != -ENOBUFS)
			return (int)n;
		if (n > 0)
			continue;
		if (r->follow && r->cur + 1 >= r->n_files && !r->zin) { /* only the last file grows */
			follow_wait(r);
			continue;
		}
		if ((r->len == r->pos || r->skipping) && r->cur + 1 < r->n_files) {
			int k = file_open(r, r->cur + 1);

			if (k < 0)
				return k;
			continue;
		}
		if (r->len == r->pos || r->skipping)
			return 0;
		/* a last line without its newline */
		r->lineno++;
		start = r->buf + r->pos;
		*len = r->len - r->pos;
		start[*len] = '\0';
		r->pos = r->len;
		*line = start;
		*partial = true;
		return 1;
	}
}

/* Integer field, or -1 if missing or not an integer. */
int64_t jint(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_integer(v) ? (int64_t)json_integer_value(v) : -1;
}

/* String field, or NULL. */
const char *jstr(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* String field of a nested object (o.key.key2), or NULL. */
const char *jstr2(json_t *o, const char *key, const char *key2)
{
	return json_string_value(json_object_get(json_object_get(o, key), key2));
}

/* Integer field of a nested object, or -1. */
int64_t jint2(json_t *o, const char *key, const char *key2)
{
	return jint(json_object_get(o, key), key2);
}

/* Keep R's thread identity (see reader.h). */
void rec_thread_ident(const struct rec *r, int64_t *managed_tid, char **name)
{
	char *n;

	if (r->managed_tid >= 0)
		*managed_tid = r->managed_tid;
	if (!r->thread_name || (*name && strcmp(*name, r->thread_name) == 0))
		return;
	if ((n = strdup(r->thread_name))) {
		free(*name);
		*name = n;
	}
}

/* Release a record's JSON. */
void rec_done(struct rec *r)
{
	json_decref(r->j);
	r->j = NULL;
}

/* Parse one line into a record (see reader.h). */
/* Is KEY of J an integer (not absent, not null)? */
static bool has_int(json_t *j, const char *key)
{
	return json_is_integer(json_object_get(j, key));
}

/* Range checks on the numbers the readers compute with: a ts is 0 or more
 * (nanoseconds since 1970), a duration no longer than its ts (a span that
 * began before 1970 is damage).  An out-of-range value reads as absent
 * (-1), so nothing downstream subtracts or adds it; said in *RET_ERR. */
static int rec_ranges(struct rec *out, char **ret_err)
{
	if (out->ts < 0 && has_int(out->j, "ts")) {
		int64_t v = out->ts;

		out->ts = out->dur_ns = -1;
		return asprintf(ret_err, "ts %" PRId64 " out of range (0 to %" PRId64 "); read as absent", v, INT64_MAX);
	}
	if ((out->dur_ns < 0 && has_int(out->j, "dur_ns")) || (out->ts >= 0 && out->dur_ns > out->ts)) {
		int64_t v = out->dur_ns;

		out->dur_ns = -1;
		return asprintf(ret_err, "dur_ns %" PRId64 " out of range (0 to its ts, %" PRId64 "); read as absent", v,
				out->ts >= 0 ? out->ts : INT64_MAX);
	}
	return 0;
}

int rec_parse(struct rec *out, const char *line, size_t len, uint64_t lineno, char **ret_err)
{
	json_error_t e;
	json_t *j;
	const char *ev;
	int r;

	*out = (struct rec){ .line = lineno };
	*ret_err = NULL;
	if (memchr(line, '\0', len)) {
		r = asprintf(ret_err, "binary data (NUL byte), not a JSON Lines record");
		goto fail;
	}
	j = json_loadb(line, len, 0, &e);
	if (!j) {
		r = asprintf(ret_err, "not JSON: %s (column %d)", e.text, e.column);
		goto fail;
	}
	if (!json_is_object(j)) {
		json_decref(j);
		r = asprintf(ret_err, "not a JSON object");
		goto fail;
	}
	ev = jstr(j, "event");
	if (!ev) {
		json_decref(j);
		r = asprintf(ret_err, "no \"event\" string");
		goto fail;
	}
	out->j = j;
	out->event = ev;
	out->ev = ct_event_from_string(ev);
	out->cat = out->ev >= 0 ? (int)ct_events[out->ev].category : _CAT_INVALID;
	/* phase and depth are omitted at their defaults, instant and 0 */
	out->ph = json_object_get(j, "phase") ? ct_phase_from_string(jstr(j, "phase")) : PH_INSTANT;
	out->thread = jstr(j, "thread");
	out->managed_tid = jint(j, "managed_tid");
	out->thread_name = jstr(j, "thread_name");
	out->v = jint(j, "v");
	out->seq = jint(j, "seq");
	out->ts = jint(j, "ts");
	out->pid = jint(j, "pid");
	out->tid = jint(j, "tid");
	out->span = jint(j, "span");
	out->parent = jint(j, "parent");
	out->depth = json_object_get(j, "depth") ? jint(j, "depth") : 0;
	out->dur_ns = jint(j, "dur_ns");
	out->begin_tid = jint(j, "begin_tid");
	if (out->ph != PH_END || out->begin_tid <= 0 || out->begin_tid == out->tid)
		out->begin_tid = -1;
	if (rec_ranges(out, ret_err) < 0)
		*ret_err = NULL;
	return 0;
fail:
	if (r < 0)
		*ret_err = NULL;
	return -EINVAL;
}

static const char *const exc_kept_keys[] = { "type", "message", "hresult" };

/* What of an exception E a reader keeps for its summary: a new object. */
static json_t *exc_kept(json_t *e)
{
	json_t *k = json_object();

	for (size_t i = 0; k && i < sizeof(exc_kept_keys) / sizeof(exc_kept_keys[0]); i++)
		if (json_object_get(e, exc_kept_keys[i]))
			(void)json_object_set(k, exc_kept_keys[i], json_object_get(e, exc_kept_keys[i]));
	return k;
}

/* The bytes counted for E's kept members (their strings and a little). */
static size_t exc_kept_size(json_t *e)
{
	size_t n = 64;

	for (size_t i = 0; i < sizeof(exc_kept_keys) / sizeof(exc_kept_keys[0]); i++)
		n += json_string_length(json_object_get(e, exc_kept_keys[i]));
	return n;
}

/* R's exception id (see reader.h). */
int64_t rec_exception_id(const struct rec *r)
{
	json_t *e = json_object_get(r->j, "exception");

	if (!e && r->ev == EV_EXCEPTION_SUMMARY)
		return jint(r->j, "error");
	return jint(e, "id");
}

/* An exception.summary names its exception by id only, or not at all when
 * that is its error's (earlier versions wrote its type, message and
 * hresult too): complete it from the exception.throw of the same pid and
 * id read before it. */
static void rec_complete(struct rd *r, const struct rec *out)
{
	json_t *e, *t;
	int64_t id;
	uint64_t key;

	if ((out->ev != EV_EXCEPTION_THROW && out->ev != EV_EXCEPTION_SUMMARY) || out->pid < 0 ||
	    (id = rec_exception_id(out)) < 0)
		return;
	e = json_object_get(out->j, "exception");
	if (!e && json_object_set_new(out->j, "exception", json_pack("{s:I}", "id", (json_int_t)id)) == 0)
		e = json_object_get(out->j, "exception");
	if (!json_is_object(e))
		return;
	key = (uint64_t)(uint32_t)out->pid << 32 | (uint32_t)id;
	/* a throw of the same key again (another run's pid): the newer */
	t = u64map_del(&r->throws, key);
	if (t)
		r->throws_bytes -= exc_kept_size(t);
	if (out->ev == EV_EXCEPTION_THROW) {
		json_decref(t);
		if (!json_object_get(e, "type") || r->throws.n >= THROWS_KEPT ||
		    exc_kept_size(e) > THROWS_BYTES - r->throws_bytes || !(t = exc_kept(e)))
			return;
		void **slot = u64map_slot(&r->throws, key);

		if (!slot) {
			json_decref(t);
			return;
		}
		*slot = t;
		r->throws_bytes += exc_kept_size(t);
		return;
	}
	if (t && !json_object_get(e, "type"))
		(void)json_object_update_missing(e, t);
	json_decref(t);
}

/* Next record (see reader.h). */
int rd_record(struct rd *r, struct rec *out)
{
	for (;;) {
		const char *line;
		size_t len;
		bool partial;
		char *err = NULL;
		int k = rd_line(r, &line, &len, &partial);

		if (k <= 0)
			return k;
		if (len == 0)
			continue; /* blank lines carry nothing */
		if (rec_parse(out, line, len, r->lineno, &err) == 0) {
			if (err) { /* a record with a number out of range: kept, said, counted */
				rd_warn(r, r->lineno, "%s", err);
				rd_mark_bad(r);
				free(err);
			}
			rec_complete(r, out);
			return 1;
		}
		if (partial)
			rd_warn(r, r->lineno, "truncated last line (no newline; the writer stopped mid-record): %s",
				err ? err : "unreadable");
		else
			rd_warn(r, r->lineno, "%s", err ? err : "unreadable");
		if (!partial)
			r->bad++;
		free(err);
	}
}

enum color_mode { COLOR_MODE_AUTO, COLOR_MODE_ALWAYS, COLOR_MODE_NEVER, _COLOR_MODE_MAX, _COLOR_MODE_INVALID = -1 };

static const char *const color_mode_table[_COLOR_MODE_MAX] = {
	[COLOR_MODE_AUTO] = "auto",
	[COLOR_MODE_ALWAYS] = "always",
	[COLOR_MODE_NEVER] = "never",
};

DEFINE_PRIVATE_STRING_TABLE_LOOKUP(color_mode, enum color_mode, _COLOR_MODE_INVALID)

/* Should output to FD be coloured, given --color=ARG (NULL: auto)? */
int color_choice(const char *arg, int fd, bool *ret)
{
	enum color_mode m = arg ? color_mode_from_string(arg) : COLOR_MODE_AUTO;

	if (m == _COLOR_MODE_INVALID)
		return -EINVAL;
	if (m == COLOR_MODE_ALWAYS)
		*ret = true;
	else if (m == COLOR_MODE_NEVER)
		*ret = false;
	else
		*ret = isatty(fd) && !(getenv("NO_COLOR") && *getenv("NO_COLOR"));
	return 0;
}

/* Duration in a short human form into buf. */
const char *fmt_dur(char *buf, size_t size, int64_t ns)
{
	static const struct {
		int64_t below, div;
		const char *unit;
	} units[] = {
		{ 1000, 1, "ns" }, { 1000000, 1000, "µs" }, { 1000000000, 1000000, "ms" }, { INT64_MAX, 1000000000, "s" },
	};
	size_t i = 0;

	if (ns < 0) {
		snprintf(buf, size, "?");
		return buf;
	}
	while (i + 1 < ELEMENTSOF(units) && ns >= units[i].below)
		i++;
	if (i == 0)
		snprintf(buf, size, "%" PRId64 "ns", ns);
	else
		snprintf(buf, size, "%.2f%s", (double)ns / (double)units[i].div, units[i].unit);
	return buf;
}
