/* SPDX-License-Identifier: MIT */
/*
 * FILE.<pid>.pending: create, remove, recover (see pending.h).
 *
 * A merge must never take a live writer's records (they would be written
 * twice) nor delete its file (a later death would lose them), and a new
 * writer must never overwrite a dead one's file (pid reuse: containers run
 * every program as pid 1).  So the writer makes its file without a name
 * (O_TMPFILE, else under a temporary one), gives it a unique name with
 * link(2) once whole, holds an flock(2) on it for its life, and the merge
 * takes the lock first.  What the dead writer already wrote is found by
 * content, not by pid or seq: a record line holds its pid, seq and
 * nanosecond timestamp, so the same bytes in the trace are the same record,
 * whichever other runs of the same pid share the file.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common/pending.h"
#include "common/record-head.h"
#include "common/strbuf.h"
#include "common/util.h"

_Static_assert(sizeof(struct pending_header) <= PENDING_DATA_OFFSET, "header fits its page");

#define DROP_SCAN (16u << 20) /* how far back a merge looks for the last record written */

/* Read the first line of a small /proc file into BUF; false if unreadable. */
static bool read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return true;
}

/* Start time (clock ticks after boot) of process PID as this process sees
 * it, and whether it is a zombie; 0 if there is no such process. */
static uint64_t proc_start_ticks(int pid, bool *zombie)
{
	char path[64], buf[1024], *p;
	unsigned long long start = 0;
	char state = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (!read_small(path, buf, sizeof(buf)))
		return 0;
	/* the name may hold spaces and parentheses: fields follow the last ')' */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
			 &state, &start) != 2)
		return 0;
	if (zombie)
		*zombie = state == 'Z' || state == 'X';
	return start;
}

/* This process's umask, read without changing it (022 if unknown). */
static mode_t process_umask(void)
{
	char buf[4096], *p;
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 022;
	buf[n] = 0;
	p = strstr(buf, "\nUmask:");
	return p ? (mode_t)strtoul(p + 7, NULL, 8) & 0777 : 022;
}

/* Inode of this process's PID namespace (0 if unknown). */
static uint64_t pid_ns_ino(void)
{
	struct stat st;

	return stat("/proc/self/ns/pid", &st) == 0 ? (uint64_t)st.st_ino : 0;
}

/* Fill in who writes the mirror (under the `clrtrace run` RUN_ID, or none). */
static void header_identify(struct pending_header *h, int trace_fd, unsigned n_bufs, bool locked, const char *run_id)
{
	struct stat st;

	memset(h, 0, sizeof(*h));
	memcpy(h->magic, PENDING_MAGIC, 8);
	h->pid = getpid();
	h->n_bufs = n_bufs;
	h->locked = locked;
	h->start_ticks = proc_start_ticks(h->pid, NULL);
	h->pid_ns = pid_ns_ino();
	if (!read_small("/proc/sys/kernel/random/boot_id", h->boot_id, sizeof(h->boot_id)))
		h->boot_id[0] = 0;
	h->trace_off = fstat(trace_fd, &st) == 0 ? (uint64_t)st.st_size : 0;
	if (run_id && strlen(run_id) < sizeof(h->run_id)) /* a longer one is none of run's */
		memcpy(h->run_id, run_id, strlen(run_id) + 1);
}

/* Write BUF[0..len) at OFF, or zeros when BUF is NULL: written, not
 * fallocated, so that the blocks are only reserved (delayed allocation) and
 * a mirror removed before writeback frees nothing on disk.  fallocated
 * blocks made the last close of the removed mirror wait for a journal
 * commit (2-5 ms on ext4); a write reserves the room as surely: a later
 * store into these pages needs no block.  0 or -errno (-ENOSPC). */
static int reserve_write(int fd, const void *buf, size_t len, off_t off)
{
	static const char zeros[4096];
	struct iovec iov[64];

	while (len > 0) {
		size_t n = 0, chunk = 0;
		ssize_t k;

		if (buf)
			iov[n++] = (struct iovec){ .iov_base = (void *)buf, .iov_len = len };
		else
			for (; n < ELEMENTSOF(iov) && chunk < len; n++) {
				size_t l = len - chunk < sizeof(zeros) ? len - chunk : sizeof(zeros);

				iov[n] = (struct iovec){ .iov_base = (void *)zeros, .iov_len = l };
				chunk += iov[n].iov_len;
			}
		k = pwritev(fd, iov, (int)n, off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			return -ENOSPC;
		if (buf)
			buf = (const char *)buf + k;
		len -= (size_t)k;
		off += k;
	}
	return 0;
}

/* Give the finished file TMP its final name beside PATH: PATH.<pid>.pending,
 * else PATH.<pid>.<n>.pending.  link(2) never replaces an existing file;
 * where the file system has no hard links, rename without replacing.
 * FOLLOW: TMP is the /proc/self/fd link of an unnamed file (link that
 * file, not the link). */
static int link_unique(const char *tmp, const char *path, bool may_rename, bool follow, char **ret)
{
	bool no_links = false;

	for (unsigned n = 0; n < 1000; n++) {
		char *p = NULL;

		if ((n ? asprintf(&p, "%s.%d.%u.pending", path, (int)getpid(), n)
		       : asprintf(&p, "%s.%d.pending", path, (int)getpid())) < 0)
			return -ENOMEM;
		if (!no_links && linkat(AT_FDCWD, tmp, AT_FDCWD, p, follow ? AT_SYMLINK_FOLLOW : 0) == 0) {
			*ret = p;
			return 0;
		}
		if (!no_links && errno != EEXIST && errno != EMLINK) { /* EPERM, ENOTSUP ... */
			if (!may_rename) {
				int e = errno;
				free(p);
				return -e;
			}
			no_links = true;
		}
		if (no_links && renameat2(AT_FDCWD, tmp, AT_FDCWD, p, RENAME_NOREPLACE) == 0) {
			*ret = p;
			return 0;
		}
		int e = errno;
		free(p);
		if (e != EEXIST)
			return -e;
	}
	return -EEXIST;
}

/* Bytes of the mirror's mapping: the header and every buffer. */
static size_t mirror_len(const struct pending_header *h)
{
	return PENDING_DATA_OFFSET + (size_t)h->n_bufs * h->buf_size;
}

/* A new file for the mirror of PATH, beside it, created 0644 minus the
 * umask as the trace file, and never through a symlink.  UNNAMED: an
 * O_TMPFILE with no name at all, *TMP the /proc/self/fd path that gives it
 * one (cheaper by about 0.15 ms than a temporary name to create, chmod and
 * remove); else under the temporary name *TMP.  The fd or -errno. */
static int mirror_file(const char *path, bool unnamed, char **tmp)
{
	int fd;

	if (unnamed) {
		_cleanup_free_ char *dir = strdup(path);
		char *slash = dir ? strrchr(dir, '/') : NULL;

		if (!dir)
			return -ENOMEM;
		if (slash)
			slash[1] = 0;
		fd = open(slash ? dir : ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0644);
		if (fd < 0)
			return -errno;
		if (asprintf(tmp, "/proc/self/fd/%d", fd) < 0) {
			close(fd);
			return -ENOMEM;
		}
		return fd;
	}
	if (asprintf(tmp, "%s.%d.pending-new.XXXXXX", path, (int)getpid()) < 0)
		return -ENOMEM;
	fd = mkostemp(*tmp, O_CLOEXEC); /* O_EXCL: never through a symlink */
	if (fd < 0)
		return -errno;
	(void)fchmod(fd, 0644 & ~process_umask()); /* as the trace file */
	return fd;
}

/* Make, map and name the mirror of PATH (see pending_create), from an
 * UNNAMED file or a temporarily named one: a merge never sees a half-made
 * mirror. */
static int mirror_make(const char *path, int trace_fd, size_t size, unsigned n_bufs, const char *run_id,
		       bool unnamed, struct pending_header **ret, char **ret_path, int *ret_fd)
{
	_cleanup_free_ char *tmp = NULL;
	char page[PENDING_DATA_OFFSET] = { 0 };
	struct pending_header head;
	size_t len = PENDING_DATA_OFFSET + (size_t)n_bufs * size;
	struct pending_header *h;
	char *final = NULL;
	bool locked;
	int fd, r;

	fd = mirror_file(path, unnamed, &tmp);
	if (fd < 0)
		return fd;
	locked = flock(fd, LOCK_EX | LOCK_NB) == 0;
	/* the header's page now; each buffer's room when a thread takes it */
	header_identify(&head, trace_fd, n_bufs, locked, run_id);
	head.buf_size = size;
	memcpy(page, &head, sizeof(head));
	r = reserve_write(fd, page, sizeof(page), 0);
	if (r < 0)
		goto fail;
	h = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED) {
		r = -errno;
		goto fail;
	}
	r = link_unique(tmp, path, !unnamed, unnamed, &final);
	if (r < 0) {
		munmap(h, len);
		goto fail;
	}
	if (!unnamed)
		unlink(tmp); /* ENOENT after a rename */
	*ret = h;
	*ret_path = final;
	*ret_fd = fd;
	return 0;
fail:
	if (!unnamed)
		unlink(tmp);
	close(fd);
	return r;
}

/* Create and map the mirror of PATH (see pending.h): unnamed until whole,
 * or where the file system or /proc cannot, under a temporary name. */
int pending_create(const char *path, int trace_fd, size_t size, unsigned n_bufs, const char *run_id,
		   struct pending_header **ret, char **ret_path, int *ret_fd)
{
	int r;

	if (size == 0 || n_bufs == 0 || n_bufs > PENDING_MAX_BUFS || n_bufs % 2 ||
	    size > PENDING_BUF_SIZE)
		return -EINVAL;
	r = mirror_make(path, trace_fd, size, n_bufs, run_id, true, ret, ret_path, ret_fd);
	if (r < 0 && r != -ENOMEM && r != -ENOSPC && r != -EDQUOT)
		r = mirror_make(path, trace_fd, size, n_bufs, run_id, false, ret, ret_path, ret_fd);
	return r;
}

/* A second name for the mirror (see pending.h). */
int pending_link(struct pending_header *h, const char *pending_path, const char *path, int trace_fd,
		 char **ret_path)
{
	struct stat st;
	int r = link_unique(pending_path, path, false, false, ret_path);

	if (r == 0 && fstat(trace_fd, &st) == 0 && (uint64_t)st.st_size < h->trace_off)
		h->trace_off = (uint64_t)st.st_size;
	return r;
}

/* Reserve bytes FROM..TO of buffer BUF (see pending.h). */
int pending_reserve(const struct pending_header *h, int fd, unsigned buf, size_t from, size_t to)
{
	if (buf >= h->n_bufs || from > to || to > h->buf_size)
		return -EINVAL;
	return reserve_write(fd, NULL, to - from, (off_t)(PENDING_DATA_OFFSET + (size_t)buf * h->buf_size + from));
}

/* Delete, unmap and unlock the mirror: unlinked (every name) before the
 * lock goes, so a merge never finds it unlocked with a name. */
void pending_remove(struct pending_header *h, char *const *paths, size_t n_paths, int fd)
{
	for (size_t i = 0; i < n_paths; i++)
		if (paths[i])
			unlink(paths[i]);
	munmap(h, mirror_len(h));
	if (fd >= 0)
		close(fd);
}

/* ---- recovery ---- */

struct say {
	pending_say_fn fn;
	void *ud;
	const char *path;
};

/* Tell the caller why P was not merged. */
__attribute__((format(printf, 3, 4))) static void say(const struct say *s, int error, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	if (!s->fn)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	s->fn(s->ud, s->path, buf, error);
}

/* Does the header's pid mean something here (see pending.h)? */
bool pending_same_host(const struct pending_header *h)
{
	char boot[sizeof(h->boot_id)];

	return h->pid > 0 && h->pid_ns == pid_ns_ino() && h->boot_id[0] &&
	       read_small("/proc/sys/kernel/random/boot_id", boot, sizeof(boot)) &&
	       strncmp(boot, h->boot_id, sizeof(boot)) == 0;
}

/* Start time of process PID (see pending.h). */
uint64_t pending_start_ticks(int pid)
{
	return proc_start_ticks(pid, NULL);
}

/* Is the header's writer alive although its lock was free?  (It held none,
 * or something in the program closed its descriptor.)  Its start time
 * tells, where its pid means something: same boot, same PID namespace.  A
 * process that exec'd another program since counts as alive: its file is
 * merged once that one ends. */
static bool writer_alive(const struct pending_header *h)
{
	bool zombie = false;
	uint64_t st;

	if (!pending_same_host(h))
		return false;
	st = proc_start_ticks(h->pid, &zombie);
	return st && st == h->start_ticks && !zombie;
}

/* Validate a header read from disk (LEN bytes of file, overflow-safe). */
static bool header_valid(const struct say *s, const struct pending_header *h, uint64_t len)
{
	uint64_t room = len - PENDING_DATA_OFFSET; /* len >= PENDING_DATA_OFFSET: checked */

	if (memcmp(h->magic, PENDING_MAGIC, 8) != 0 && memcmp(h->magic, PENDING_MAGIC_V4, 8) != 0) {
		say(s, 1, "not a clrtrace %s file (or from another clrtrace version); left as it is", "pending");
		return false;
	}
	if (h->n_bufs == 0 || h->n_bufs % 2 || h->n_bufs > PENDING_MAX_BUFS) {
		say(s, 1, "bad header: %" PRIu32 " buffers, not an even number up to %d; left as it is", h->n_bufs,
		    PENDING_MAX_BUFS);
		return false;
	}
	if (h->buf_size == 0 || h->buf_size > PENDING_BUF_SIZE) {
		say(s, 1, "bad header: buffer size %" PRIu64 ", not 1 to %d bytes; left as it is", h->buf_size,
		    PENDING_BUF_SIZE);
		return false;
	}
	for (uint32_t i = 0; i < h->n_bufs; i++) {
		uint64_t used = atomic_load(&h->used[i]);

		/* i * buf_size + used <= n_bufs * buf_size: no overflow (checked above) */
		if (used > h->buf_size || (used && i * h->buf_size + used > room)) {
			say(s, 1, "bad header: buffer %" PRIu32 " holds %" PRIu64 " bytes, more than %s; left as it is", i,
			    used, used > h->buf_size ? "its size" : "the file has");
			return false;
		}
	}
	return true;
}

/* Is LINE (N bytes, without its newline) a whole line of T[0..tn)?  T starts
 * at a line boundary when AT_START. */
static bool has_line(const char *t, size_t tn, bool at_start, const char *line, size_t n)
{
	const char *p = t, *end;

	if (tn == 0) /* an empty trace (T may be NULL) */
		return false;
	end = t + tn;
	while (p < end && (p = memmem(p, (size_t)(end - p), line, n))) {
		bool begins = p == t ? at_start : p[-1] == '\n';

		if (begins && (size_t)(end - p) > n && p[n] == '\n')
			return true;
		p++;
	}
	return false;
}

/* One record found in a mirror: its line (without the newline) and seq. */
struct line {
	const char *v;
	size_t len;
	uint64_t seq;
};

struct lines {
	struct line *at;
	size_t n, cap;
};

/* Collect the records of buffer D[0..used): their lines and seqs.  A
 * record is counted in used only once whole, so a bad frame is damage:
 * the rest of the buffer is skipped and *BAD set. */
static int lines_add(struct lines *l, const char *d, size_t used, bool *bad)
{
	for (size_t off = 0; off < used;) {
		struct pending_rec r;
		size_t size;

		if (used - off < sizeof(r)) {
			*bad = true;
			break;
		}
		memcpy(&r, d + off, sizeof(r));
		size = pending_rec_size(r.len);
		if (r.magic != PENDING_REC_MAGIC || r.len < 2 || r.len > used - off - sizeof(r) ||
		    d[off + sizeof(r) + r.len - 1] != '\n') {
			*bad = true;
			break;
		}
		if (r.seq == 0 || r.seq > PENDING_MAX_SEQ) { /* framed, but no seq the profiler gives */
			*bad = true;
			off += size <= used - off ? size : used - off;
			continue;
		}
		if (l->n == l->cap) {
			size_t cap = l->cap ? 2 * l->cap : 256;
			struct line *at = reallocarray(l->at, cap, sizeof(*at));

			if (!at)
				return -ENOMEM;
			l->at = at;
			l->cap = cap;
		}
		l->at[l->n++] = (struct line){ .v = d + off + sizeof(r), .len = r.len - 1, .seq = r.seq };
		off += size <= used - off ? size : used - off;
	}
	return 0;
}

/* qsort order of lines by seq (each buffer is in order; threads' buffers
 * interleave). */
static int by_seq(const void *a, const void *b)
{
	uint64_t x = ((const struct line *)a)->seq, y = ((const struct line *)b)->seq;

	return x < y ? -1 : x > y;
}

/* The number after KEY in the line L (N bytes), or 0. */
static uint64_t line_number(const char *l, size_t n, const char *key)
{
	size_t kn = strlen(key);
	const char *k = memmem(l, n, key, kn);
	uint64_t v = 0;

	if (!k)
		return 0;
	for (const char *p = k + kn; p < l + n && *p >= '0' && *p <= '9' && v < UINT64_MAX / 10; p++)
		v = v * 10 + (uint64_t)(*p - '0');
	return v;
}

/* The seq of PID's last record among the whole lines of T (N bytes; a
 * torn last line is not one), looked at from the end and at most
 * DROP_SCAN bytes back, or 0. */
static uint64_t last_seq_of(const char *t, size_t n, int pid)
{
	size_t end = n, stop = n > DROP_SCAN ? n - DROP_SCAN : 0;

	while (end > stop && t[end - 1] != '\n')
		end--;

	while (end > stop) {
		const char *nl = memrchr(t + stop, '\n', end - 1 - stop);
		size_t start = nl ? (size_t)(nl - t) + 1 : stop;

		if (!nl && stop > 0)
			break; /* a line the window cuts */
		if (line_number(t + start, end - start, "\"pid\":") == (uint64_t)pid)
			return line_number(t + start, end - start, "\"seq\":");
		if (!nl)
			break;
		end = start;
	}
	return 0;
}

/* Whether the N bytes at S are valid UTF-8 (the shape of each sequence). */
static bool utf8_valid(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned c = s[i], k = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2 : (c & 0xf8) == 0xf0 ? 3 : 4;

		if (k == 4 || (k && c < 0xc2) || i + k >= n + (k ? 0 : 1))
			return false;
		for (unsigned j = 1; j <= k; j++)
			if ((s[i + j] & 0xc0) != 0x80)
				return false;
		i += k + 1;
	}
	return true;
}

/* Say in TRACE's own words (a trace.dropped record after LAST, into B)
 * that MISSING records of PID were numbered but never written: the process
 * died between numbering a record and copying it (a kill, an abort).  The
 * path goes in "where" when it can be written as JSON (valid UTF-8).  0
 * or -ENOMEM. */
static int dropped_line(struct strbuf *b, const char *trace, int pid, const struct line *last, uint64_t missing)
{
	_cleanup_(strbuf_free) struct strbuf ids = {};

	ct_record_ids(&ids, pid, pid, 0, 0, NULL);
	if (ids.oom)
		return -ENOMEM;
	ct_record_head(b, &(struct ct_record_head){
				  .seq = last->seq + 1,
				  .ts = line_number(last->v, last->len, "\"ts\":"),
				  .ids = ids.s,
				  .ids_len = ids.len,
				  .ev = EV_TRACE_DROPPED,
				  .ph = PH_INSTANT,
			  });
	strbuf_add(b, ",\"count\":", 9);
	ct_json_u64(b, missing);
	strbuf_puts(b, ",\"sink\":\"file\"");
	if (utf8_valid((const unsigned char *)trace, strlen(trace))) {
		strbuf_add(b, ",\"where\":", 9);
		ct_json_str(b, trace);
	}
	strbuf_puts(b, ",\"reason\":\"" PENDING_DIED_REASON "\"}\n");
	return b->oom ? -ENOMEM : 0;
}

/* Append to TRACE the lines of L from the first one it lacks.  The lines a
 * dead writer already wrote are a prefix of L (buffers go out in order), so
 * a binary search finds where that prefix ends.  A line the writer died
 * in the middle of writing is completed, not repeated. */
static int append_missing(int fd, const char *trace, int pid, uint64_t from, uint64_t floor, const struct lines *l,
			  int *appended, uint64_t *lost, uint64_t jump[2])
{
	_cleanup_(strbuf_free) struct strbuf drop = {};
	uint64_t prev, missing = 0;
	struct stat st;
	char *map = NULL;
	const char *t = NULL;
	size_t tn = 0, lo = 0, hi = l->n, maplen = 0, first;
	bool at_start, replaced;
	int r = 0;

	if (fstat(fd, &st) < 0)
		return -errno;
	replaced = from > (uint64_t)st.st_size;
	if (replaced)
		from = 0; /* the trace was replaced: look at all of it */
	if (st.st_size > 0) {
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED)
			return -errno;
		maplen = (size_t)st.st_size;
		t = map + from;
		tn = maplen - from;
	}
	at_start = from == 0 || (map && map[from - 1] == '\n');
	/* usually nothing was written (a death between flushes): one scan */
	if (hi && !has_line(t, tn, at_start, l->at[0].v, l->at[0].len))
		hi = 0;
	while (lo < hi) { /* first line not in the trace */
		size_t mid = lo + (hi - lo) / 2;

		if (has_line(t, tn, at_start, l->at[mid].v, l->at[mid].len))
			lo = mid + 1;
		else
			hi = mid;
	}
	first = lo;
	/* a seq between the last one written (the writer writes in seq order)
	 * and the first appended, or between appended ones, is a record that
	 * was numbered and never copied.  Not the mirror's own records before
	 * LO: a thread's half the writer wrote is reused, so they have holes */
	prev = replaced ? 0 : last_seq_of(t, tn, pid); /* replaced: its pid may be another run's */
	if (prev > PENDING_MAX_SEQ)
		prev = 0; /* no seq the profiler gives: the line is not to be trusted */
	if (prev < floor)
		prev = floor; /* rotated: the file before this one ended there */
	/* each seq <= PENDING_MAX_SEQ (lines_add), so nothing here wraps; a
	 * jump larger than a writer can lose is damage (said, not counted) */
	for (size_t i = first; i < l->n; i++) {
		uint64_t gap = prev && l->at[i].seq > prev + 1 ? l->at[i].seq - prev - 1 : 0;

		if (gap > PENDING_MAX_LOST - missing && !jump[1]) {
			jump[0] = prev;
			jump[1] = l->at[i].seq;
		}
		missing += gap <= PENDING_MAX_LOST - missing ? gap : 0;
		prev = l->at[i].seq;
	}
	if (jump[1])
		missing = 0;
	/* the trace.dropped line before anything is written: out of memory
	 * leaves the trace as it was, for a later merge */
	if (missing && dropped_line(&drop, trace, pid, &l->at[l->n - 1], missing) < 0) {
		if (map)
			munmap(map, maplen);
		return -ENOMEM;
	}
	if (lo < l->n && maplen && map[maplen - 1] != '\n') {
		/* a torn last line: ours (the start of the first missing line)
		 * is finished; another's is ended so ours are not glued to it */
		const char *nl = memrchr(map, '\n', maplen);
		size_t torn = maplen - (nl ? (size_t)(nl - map) + 1 : 0);
		bool ours = torn < l->at[lo].len && memcmp(map + maplen - torn, l->at[lo].v, torn) == 0;

		if (ours) {
			r = write_all(fd, l->at[lo].v + torn, l->at[lo].len - torn + 1);
			if (r == 0) {
				++*appended;
				lo++;
			}
		} else
			r = write_all(fd, "\n", 1);
	}
	if (map)
		munmap(map, maplen);
	for (size_t i = lo; i < l->n && r == 0; i++) {
		r = write_all(fd, l->at[i].v, l->at[i].len + 1);
		if (r == 0)
			++*appended;
	}
	if (r == 0 && missing && (r = write_all(fd, drop.s, drop.len)) == 0)
		++*appended;
	*lost = missing;
	return r;
}

/* Check that the mirror FD is a regular file of the tracing user's that no
 * one else may write (in a shared directory, another user can plant a
 * file under a mirror's name, with forged records: it is not merged, nor
 * deleted), then lock it and check its size.  Returns 0 to go on, 1 when
 * its writer has removed it meanwhile, -errno (said) otherwise. */
static int mirror_check(struct say *s, int fd, struct stat *st)
{
	int r;

	if (fstat(fd, st) < 0) {
		r = -errno;
		say(s, 1, "cannot stat: %s", strerror(-r));
		return r;
	}
	if (S_ISREG(st->st_mode) && st->st_uid != geteuid()) {
		say(s, 1, "another user's file (uid %u), not the tracing user's: not merged; left as it is",
		    (unsigned)st->st_uid);
		return -EPERM;
	}
	if (S_ISREG(st->st_mode) && (st->st_mode & (S_IWGRP | S_IWOTH))) {
		say(s, 1, "others may write to it (mode %04o): not merged; left as it is", (unsigned)(st->st_mode & 07777));
		return -EPERM;
	}
	if (!S_ISREG(st->st_mode)) {
		say(s, 1, "not a clrtrace pending file (not a regular file); left as it is");
		return -EBADMSG;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		r = errno == EWOULDBLOCK ? -EBUSY : -errno;
		if (r == -EBUSY)
			say(s, 0, "in use by a running process (or another merge); left alone");
		else
			say(s, 1, "cannot lock: %s", strerror(-r));
		return r;
	}
	if (fstat(fd, st) < 0) {
		r = -errno;
		say(s, 1, "cannot stat: %s", strerror(-r));
		return r;
	}
	if (st->st_nlink == 0)
		return 1; /* its writer finished and removed it while we opened it */
	if (S_ISREG(st->st_mode) && (uint64_t)st->st_size > PENDING_MAX_FILE) {
		say(s, 1, "not a clrtrace pending file: %" PRIu64 " bytes, larger than any (%" PRIu64 "); left as it is",
		    (uint64_t)st->st_size, PENDING_MAX_FILE);
		return -EBADMSG;
	}
	if (!S_ISREG(st->st_mode) || (uint64_t)st->st_size < PENDING_DATA_OFFSET) {
		say(s, 1, "not a clrtrace pending file (%s, %" PRIu64 " bytes); left as it is",
		    S_ISREG(st->st_mode) ? "size" : "not a regular file", (uint64_t)st->st_size);
		return -EBADMSG;
	}
	return 0;
}

/* Read the header of the mirror FD (of SIZE bytes) into *H and, if its writer is gone, the
 * bytes in use of its buffers into *DATA, one after the other: only what the validated
 * header says is in use, never the whole file (at most PENDING_MAX_BUFS * PENDING_BUF_SIZE
 * bytes).  Returns 0 or -errno (said). */
static int mirror_load(struct say *s, int fd, uint64_t size, struct pending_header **h, char **data)
{
	size_t total = 0, at = 0;
	int r = 0;

	*h = calloc(1, sizeof(**h));
	if (!*h) {
		say(s, 1, "cannot read its header: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	if (pread(fd, *h, sizeof(**h), 0) != (ssize_t)sizeof(**h)) {
		say(s, 1, "cannot read its header");
		return -EIO;
	}
	if (!header_valid(s, *h, size))
		return -EBADMSG;
	(*h)->run_id[sizeof((*h)->run_id) - 1] = 0;
	(*h)->boot_id[sizeof((*h)->boot_id) - 1] = 0;
	if (writer_alive(*h)) {
		say(s, 0, "its process (pid %d) still runs; left alone", (*h)->pid);
		return -EBUSY;
	}
	/* header_valid: each used <= buf_size <= PENDING_BUF_SIZE, within the file */
	for (uint32_t i = 0; i < (*h)->n_bufs; i++)
		total += (size_t)atomic_load(&(*h)->used[i]);
	*data = malloc(total ? total : 1);
	if (!*data) {
		say(s, 1, "cannot read its buffers: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < (*h)->n_bufs && r == 0; i++) {
		size_t used = (size_t)atomic_load(&(*h)->used[i]);
		ssize_t k = used ? pread(fd, *data + at, used, (off_t)(PENDING_DATA_OFFSET + i * (*h)->buf_size)) : 0;

		if (k != (ssize_t)used) {
			r = k < 0 ? -errno : -EIO;
			say(s, 1, "cannot read its buffer %" PRIu32 ": %s", i, k < 0 ? strerror(-r) : "the file is shorter");
		}
		at += used;
	}
	return r;
}

/* Append to TRACE the records of the buffers DATA of the mirror H that it lacks, in seq
 * order; *N counts them.  Returns 0 or -errno (said). */
static int mirror_append(struct say *s, const char *trace, const struct pending_header *h, const char *data, int *n)
{
	struct lines l = { 0 };
	uint64_t lost = 0, jump[2] = { 0, 0 };
	bool bad = false;
	int tfd, r = 0;

	for (size_t i = 0, at = 0; i < h->n_bufs && r == 0; i++) { /* DATA: the bytes in use, one buffer after another */
		size_t used = (size_t)atomic_load(&h->used[i]);

		r = lines_add(&l, data + at, used, &bad);
		at += used;
	}
	if (bad)
		say(s, 1, "damaged records skipped; the others are merged");
	if (r == 0 && l.n)
		qsort(l.at, l.n, sizeof(*l.at), by_seq);
	/* rotated: what is in the files before the trace is not merged again */
	size_t skip = 0;
	uint64_t floor = atomic_load(&h->rotated_seq);

	while (skip < l.n && l.at[skip].seq <= floor)
		skip++;
	if (skip) {
		memmove(l.at, l.at + skip, (l.n - skip) * sizeof(*l.at));
		l.n -= skip;
	}
	if (r == 0 && l.n) {
		tfd = open(trace, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0644);
		if (tfd < 0)
			r = -errno;
		else {
			r = append_missing(tfd, trace, h->pid, h->trace_off, floor, &l, n, &lost, jump);
			close(tfd);
		}
	}
	if (r == 0 && jump[1])
		say(s, 1, "seq jumps from %" PRIu64 " to %" PRIu64 ", more than a process can lose (%" PRIu64
			  "): damaged; no trace.dropped written", jump[0], jump[1], PENDING_MAX_LOST);
	if (r == 0 && lost)
		say(s, 0, "%" PRIu64 " record%s numbered but never written (the process died in between): said by trace.dropped",
		    lost, lost == 1 ? " was" : "s were");
	if (r < 0)
		say(s, 1, "cannot append to %s: %s", trace, strerror(-r));
	free(l.at);
	return r;
}

/* Whose the mirror H is, in a few words: "pid 123, started 4567 ticks
 * after boot, this boot" (a record line holds the pid too). */
static void writer_words(const struct pending_header *h, char *buf, size_t size)
{
	char boot[sizeof(h->boot_id)];
	bool this_boot = h->boot_id[0] && read_small("/proc/sys/kernel/random/boot_id", boot, sizeof(boot)) &&
			 strncmp(boot, h->boot_id, sizeof(boot)) == 0;

	snprintf(buf, size, "pid %d, started %" PRIu64 " ticks after boot, %s%s", h->pid, h->start_ticks,
		 this_boot ? "this boot" : !h->boot_id[0] ? "boot unknown" : "another boot",
		 h->run_id[0] ? ", under a clrtrace run" : "");
}

/* Merge one mirror P into TRACE if its writer is gone and OURS takes it,
 * then delete it.  Returns the records appended, or -errno. */
static int recover_one(const char *trace, const char *p, pending_ours_fn ours, pending_say_fn fn, void *ud)
{
	char who[160];
	_cleanup_free_ struct pending_header *h = NULL;
	_cleanup_free_ char *data = NULL;
	struct say s = { fn, ud, p };
	struct stat st;
	int fd, n = 0, r;

	fd = open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		r = -errno;
		if (r != -ENOENT) /* gone: its writer removed it meanwhile */
			say(&s, 1, "cannot open: %s", strerror(-r));
		return r == -ENOENT ? 0 : r;
	}
	r = mirror_check(&s, fd, &st);
	if (r != 0)
		goto out;
	r = mirror_load(&s, fd, (uint64_t)st.st_size, &h, &data);
	if (r < 0)
		goto out;
	writer_words(h, who, sizeof(who));
	if (ours && !ours(ud, h)) {
		say(&s, 1, "not written by a process of this run (%s): not merged; left as it is", who);
		r = -EPERM;
		goto out;
	}
	r = mirror_append(&s, trace, h, data, &n);
	if (r < 0)
		goto out;
	unlink(p); /* before the lock goes: no second merge of it */
	say(&s, -1, "%d record%s merged (%s)", n, n == 1 ? "" : "s", who);
out:
	close(fd);
	return r < 0 ? r : n;
}

/* Is NM (in TRACE's directory) a mirror of BASE: BASE.<pid>.pending or
 * BASE.<pid>.<n>.pending? */
static bool mirror_name(const char *nm, const char *base, size_t bl)
{
	size_t l = strlen(nm), d1, d2 = 0;
	const char *mid = nm + bl + 1;

	if (l <= bl + 9 || strncmp(nm, base, bl) != 0 || nm[bl] != '.' || strcmp(nm + l - 8, ".pending") != 0)
		return false;
	d1 = strspn(mid, "0123456789");
	if (d1 == 0)
		return false;
	if (mid[d1] == '.' && mid + d1 + 1 < nm + l - 8)
		d2 = strspn(mid + d1 + 1, "0123456789") + 1;
	return mid + d1 + d2 == nm + l - 8 && (d2 == 0 || d2 > 1);
}

/* Merge every dead writer's mirror of TRACE (see pending.h). */
int pending_recover(const char *trace, pending_ours_fn ours, pending_say_fn fn, void *ud)
{
	_cleanup_free_ char *dir = strdup(trace);
	const char *base, *dname;
	struct stat st;
	char *slash;
	DIR *d;
	struct dirent *de;
	int total = 0, r = 0, found = 0;

	if (!dir)
		return -ENOMEM;
	slash = strrchr(dir, '/');
	if (slash) {
		*slash = 0;
		base = slash + 1;
		dname = *dir ? dir : "/";
	} else {
		base = trace;
		dname = ".";
	}
	d = opendir(dname);
	if (!d)
		return -errno;
	size_t bl = strlen(base);
	while ((de = readdir(d))) {
		char *p = NULL;

		if (!mirror_name(de->d_name, base, bl))
			continue;
		found++;
		if (asprintf(&p, "%s/%s", slash ? (*dir ? dir : "") : ".", de->d_name) < 0) {
			r = -ENOMEM;
			break;
		}
		int n = recover_one(trace, p, ours, fn, ud);
		free(p);
		if (n >= 0)
			total += n;
		else if (n != -EBUSY)
			r = -EBADMSG; /* it has had its line */
	}
	closedir(d);
	if (r == 0 && !found && stat(trace, &st) < 0)
		return -errno;
	return r < 0 && total == 0 ? r : total;
}
