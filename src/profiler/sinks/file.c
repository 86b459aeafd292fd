/* SPDX-License-Identifier: MIT */
/*
 * The JSON Lines file sink.  Only the writer calls it (stage.c: one thread
 * at a time, records in seq order), so it keeps no lock: records go into
 * one buffer, written with one write(2) when it fills and at the end of
 * each round.  Write errors and a removed file are counted, never fatal.
 * A regular file is written under an exclusive flock, and a write the disk
 * takes only part of is cut off again whole (ftruncate back to where it
 * began): the file holds whole writes only, so no torn line is ever glued
 * to another process's record (several processes may append to one file)
 * and no whole line of a failed write lands after a gap that nothing
 * explains yet.  Without the lock (a FIFO, a terminal, or flock failing) a
 * partial write keeps its whole lines and the torn last one is cut off the
 * file or its rest written first next time.  The records that did not
 * make it are counted, each once.
 *
 * Records that are staged but not yet in the file are in the staging
 * area's mirror, FILE.<pid>.pending (stage.c): a process that dies with no
 * chance to flush leaves them there for `clrtrace run` or `clrtrace
 * recover`.
 *
 * Bounded disk (the options max-size, keep, min-free, compress): before a
 * write that would take a regular file past max-size, the file is renamed
 * STEM.N.jsonl (N = 1, 2, ... in the order written; PATH itself is always
 * the file being written) and a new PATH begins with a trace.rotated
 * record.  A helper thread compresses the file rotated out into
 * STEM.N.jsonl.zst (one zstd frame) and removes the oldest ones past keep:
 * retention, not loss, so trace.rotated lists them with their seq ranges
 * and no trace.dropped counts them.  With min-free, a write that would
 * leave less than that share of the file system free is not made (counted
 * lost and said, as a full disk); the free space is asked at most every
 * ROOM_EVERY_NS and what is written meanwhile taken off it.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/record-head.h"
#include "profiler/sinks/sink.h"
#include "profiler/sinks/stage.h"
#include "common/util.h"
#include "common/zstd-lazy.h"

#define FILE_BUFFER_SIZE (256 * 1024)
#define STAT_EVERY_NS (10 * 1000000u)
#define ROOM_EVERY_NS (250 * 1000000u) /* min-free: statvfs at most this often */
#define ZSTD_LEVEL 1                   /* fast: the helper shares the program's CPUs */

/* A file rotated out and still kept: its number and our seq range in it. */
struct rotated {
	unsigned index;
	uint64_t first, last; /* 0, 0: none of our records */
};

/* A job of the helper thread: compress PLAIN into ZST, or remove both. */
struct zjob {
	struct zjob *next;
	char *plain, *zst;
	bool remove;
};

/* The helper thread that compresses and removes rotated files, off the
 * writer's path (a round never waits for it). */
struct helper {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct zjob *head, **tail;
	bool stop;
	unsigned min_free;
	void (*say)(const char *key, const char *fmt, ...);
};

struct file_sink {
	int fd;
	char *path;
	char *buf;
	size_t used;
	uint64_t n;             /* records in buf */
	uint64_t n_since_stat;  /* records in the file as opened (lost if it is removed) */
	uint64_t next_stat_ns;  /* when to ask again whether it was removed (mono_coarse_ns) */
	char *owed;             /* the rest of a torn last line, written first next time */
	size_t owed_len;
	size_t torn;            /* bytes of that line in the file */
	char gone[160];         /* the file was removed and cannot be made again: why */
	bool in_error;
	/* Records were lost and no trace.dropped has reached the file since:
	 * every record is held back (counted lost) until one does, so that
	 * the next record after a gap is the one that explains it. */
	bool holding;
	uint64_t buf_drops;     /* the counts of the trace.dropped records in buf */
	uint64_t buf_seq;       /* the seq of the last record in buf */
	uint64_t file_seq;      /* ... and in the file (a regular file's whole writes) */
	/* the seqs a trace.dropped counted as its exact gap: above told_from,
	 * below told_through.  A record of them that comes late (a thread
	 * staged it after the writer had passed its seq) was told lost, and
	 * is dropped, so the trace never says both */
	uint64_t told_from, told_through;
	bool regular;           /* a regular file: the only kind a mirror goes beside */
	/* bounded disk (see the top); opt.path unused */
	struct ct_output opt;
	int pid;
	void (*say)(const char *key, const char *fmt, ...);
	uint64_t buf_first;     /* the seq of the first record in buf */
	uint64_t cur_first;     /* ... of our first record in the file, 0: none yet */
	uint64_t floor;         /* the last seq in the files rotated out (the mirror's) */
	unsigned next_index;    /* the number of the next file rotated out */
	struct rotated *old;    /* with keep: the files rotated out and kept, oldest first */
	size_t n_old;
	struct helper *helper;  /* started at the first rotation */
	uint64_t removed;       /* files the keep limit removed, all told */
	uint64_t removed_through; /* the last seq in the newest of them */
	uint64_t room;          /* min-free: bytes that may still be written */
	uint64_t next_room_ns;  /* when to ask statvfs again */
	char low[64];           /* min-free: the reason of a loss */
};

/* May the tracing user append its trace to ST, a file that was already
 * there?  Only to its own: in a shared directory (/tmp) another user can
 * make the file first, under a name as predictable as a pid, and would read
 * the trace (exception messages and all) or stall it through a FIFO.  A
 * regular file or a FIFO must belong to the tracing user, and a regular
 * file must not be writable by others (anyone could truncate or forge
 * records); a character device may also be root's (/dev/null). */
static int file_is_ours(const struct stat *st)
{
	uid_t me = geteuid();

	if (S_ISREG(st->st_mode))
		return st->st_uid == me && !(st->st_mode & S_IWOTH) ? 0 : -EPERM;
	if (S_ISFIFO(st->st_mode))
		return st->st_uid == me ? 0 : -EPERM;
	if (S_ISCHR(st->st_mode))
		return st->st_uid == me || st->st_uid == 0 ? 0 : -EPERM;
	return -EPERM;
}

/* Open PATH for appending, never through a symlink: created exclusively,
 * or else opened only when file_is_ours.  Non-blocking, so that a FIFO with
 * no reader fails (ENXIO) instead of stopping the program at start.  Writes
 * to a regular file block again once it is open; to anything else (a FIFO,
 * a terminal) they stay non-blocking: a reader that stops reading makes
 * records count as lost (EAGAIN), never a program thread wait, because a
 * thread whose staging halves are full does the writer's round itself. */
static int file_open_path(const char *path)
{
	const int flags = O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK;
	struct stat st;
	int fd = -1, fl;

	/* a file removed between the two opens: try again, a few times */
	for (int i = 0; i < 3 && fd < 0; i++) {
		fd = open(path, flags | O_CREAT | O_EXCL, 0644);
		if (fd >= 0 || errno != EEXIST)
			break;
		fd = open(path, flags);
		if (fd < 0 && errno != ENOENT)
			return -errno;
		if (fd >= 0 && (fstat(fd, &st) < 0 || file_is_ours(&st) < 0)) {
			close(fd);
			return -EPERM;
		}
	}
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) == 0 && !S_ISREG(st.st_mode))
		return fd;
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		fl = -errno;
		close(fd);
		return fl;
	}
	return fd;
}

/* Open the sink from its template. */
static int file_open(struct ct_sink *s, const struct ct_output *o, const struct ct_sink_spec *spec, char **why)
{
	struct file_sink *f;
	struct stat st;
	char *path;
	int fd;

	path = config_expand_path(o->path, spec->pid, spec->program, (long long)(spec->start_ns / 1000000000u));
	if (!path)
		return -ENOMEM;
	fd = file_open_path(path);
	if (fd < 0) {
		/* ENXIO is also a device with no driver behind it: say FIFO only for one */
		bool fifo = fd == -ENXIO && lstat(path, &st) == 0 && S_ISFIFO(st.st_mode);

		if (asprintf(why, "cannot open trace file %s: %s", path,
			     fifo		  ? "a FIFO with no reader"
			     : fd == -EPERM	  ? "it is another user's file, or others may write to it"
						  : strerror(-fd)) < 0)
			*why = NULL;
		free(path);
		return fd;
	}
	f = calloc(1, sizeof(*f));
	if (f)
		f->buf = malloc(FILE_BUFFER_SIZE);
	if (!f || !f->buf) {
		free(f);
		close(fd);
		free(path);
		return -ENOMEM;
	}
	f->regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
	f->opt = *o;
	f->opt.path = NULL;
	f->pid = spec->pid;
	f->say = spec->say;
	f->next_index = 1;
	if (f->regular && o->min_free)
		stage_set_min_free(o->min_free);
	snprintf(f->low, sizeof(f->low), "less than %u%% of the file system (at most 4G) free", o->min_free);
	f->fd = fd;
	f->path = path;
	s->data = f;
	s->where = strdup(path);
	return 0;
}

/* The file's path and descriptor, for the staging area's mirror: none for
 * a device or a FIFO (/dev/null.<pid>.pending would be litter in /dev, and
 * nothing could be recovered into them). */
bool ct_file_sink_target(const struct ct_sink *s, const char **path, int *fd)
{
	const struct file_sink *f = s->data;

	if (s->ops->kind != OUT_FILE || !f || !f->regular)
		return false;
	*path = f->path;
	*fd = f->fd;
	return true;
}

/* The files the keep limit removed so far (0 for other kinds). */
uint64_t ct_file_sink_removed(const struct ct_sink *s)
{
	const struct file_sink *f = s->data;

	return s->ops->kind == OUT_FILE && f ? f->removed : 0;
}

/* Forget the rest of a torn line. */
static void file_forget_owed(struct file_sink *f)
{
	free(f->owed);
	f->owed = NULL;
	f->owed_len = 0;
	f->torn = 0;
}

/* If the file was removed, count what went into it as lost and (if
 * REOPEN) make it again; when that fails, say why in f->gone (and retry
 * next time).  Caller holds f->io. */
static void file_check_removed(struct ct_sink *s, struct file_sink *f, bool reopen)
{
	uint64_t with_it = 0; /* records (and a torn one) that went with the file */
	struct stat st;
	int fd;

	if (!f->gone[0]) {
		if (fstat(f->fd, &st) < 0 || st.st_nlink > 0)
			return;
		with_it = f->n_since_stat + (f->owed_len ? 1 : 0);
		f->n_since_stat = 0;
		file_forget_owed(f);
		snprintf(f->gone, sizeof(f->gone), "trace file removed while in use");
	}
	fd = reopen ? file_open_path(f->path) : -ENOENT;
	if (fd < 0) {
		if (reopen)
			snprintf(f->gone, sizeof(f->gone), "trace file removed, cannot create it again: %s",
				 strerror(-fd));
		ct_sink_lost(s, with_it, f->gone);
		return;
	}
	ct_sink_lost(s, with_it, f->gone);
	close(f->fd);
	f->fd = fd;
	f->gone[0] = 0;
	f->in_error = false;
	ct_sink_recovered(s);
}

/* Records (newlines) in D[0..n). */
static uint64_t count_lines(const char *d, size_t n)
{
	uint64_t k = 0;

	for (const char *p = d; (p = memchr(p, '\n', (size_t)(d + n - p))); p++)
		k++;
	return k;
}

/* A write stopped TORN bytes into a line: cut them off the file while it
 * still ends there; if the file cannot be cut, owe the rest of the line
 * (REST) to the next write.  True when the torn record is lost. */
static bool file_untear(struct file_sink *f, size_t torn, const char *rest, size_t rest_len)
{
	off_t end = lseek(f->fd, 0, SEEK_CUR); /* O_APPEND: the end of our write */
	struct stat st;

	if (end >= (off_t)torn && fstat(f->fd, &st) == 0) {
		if (st.st_size != end)
			return true; /* another process appended since: nothing to mend */
		if (ftruncate(f->fd, end - (off_t)torn) == 0)
			return true;
	}
	f->owed = malloc(rest_len);
	if (!f->owed)
		return true;
	memcpy(f->owed, rest, rest_len);
	f->owed_len = rest_len;
	f->torn = torn;
	return false;
}

/* Count N records lost for the write error R; hold back what comes
 * next, and owe again the counts of the trace.dropped records that did
 * not reach the file (DROPS). */
static void file_failed(struct ct_sink *s, struct file_sink *f, int r, uint64_t n, uint64_t drops)
{
	ct_sink_lost(s, n, ct_sink_errno_reason(r));
	ct_sink_unreport(s, (int64_t)drops);
	f->in_error = true;
	f->holding = true;
}

/* The seq of the line of D that ends at END (its newline), 0 if none. */
static uint64_t line_seq(const char *d, size_t end)
{
	const char *nl = end ? memrchr(d, '\n', end) : NULL;
	const char *line = nl ? nl + 1 : d;
	const char *k = memmem(line, (size_t)(d + end - line), "\"seq\":", 6);

	return k ? strtoull(k + 6, NULL, 10) : 0;
}

/* The name of rotated file INDEX: STEM.INDEX.jsonl for PATH = STEM.jsonl,
 * else PATH.INDEX; with ".zst" when ZST.  NULL without memory. */
static char *rotated_name(const struct file_sink *f, unsigned index, bool zst)
{
	size_t l = strlen(f->path);
	char *n = NULL;
	int r;

	if (l > 6 && strcmp(f->path + l - 6, ".jsonl") == 0)
		r = asprintf(&n, "%.*s.%u.jsonl%s", (int)(l - 6), f->path, index, zst ? ".zst" : "");
	else
		r = asprintf(&n, "%s.%u%s", f->path, index, zst ? ".zst" : "");
	return r < 0 ? NULL : n;
}

/* Compress PLAIN into ZST (through ZST.tmp, made exclusively), then remove
 * PLAIN; on any failure PLAIN stays as it is. */
static void helper_compress(struct helper *h, const char *plain, const char *zst)
{
	_cleanup_free_ char *tmp = NULL;
	struct statvfs v;
	struct stat st;
	const char *why = NULL;
	int in, out = -1, r;

	in = open(plain, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
	if (in < 0 || fstat(in, &st) < 0 || file_is_ours(&st) < 0 || !S_ISREG(st.st_mode)) {
		why = in < 0 ? strerror(errno) : "not the tracing user's regular file";
		goto out;
	}
	/* min-free: no room for the compressed copy (about a tenth) */
	if (h->min_free && fstatvfs(in, &v) == 0 && v.f_blocks &&
	    (unsigned __int128)v.f_bavail * v.f_frsize <
		    ct_min_free_floor(v.f_blocks, v.f_frsize, h->min_free) + (uint64_t)st.st_size / 4) {
		why = "too little free space for the compressed copy";
		goto out;
	}
	if (asprintf(&tmp, "%s.tmp", zst) < 0) {
		tmp = NULL;
		why = strerror(ENOMEM);
		goto out;
	}
	out = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0644);
	if (out < 0) {
		why = strerror(errno);
		goto out;
	}
	r = zstd_compress_fd(in, out, ZSTD_LEVEL);
	if (r == 0 && close(out) < 0)
		r = -errno;
	out = -1;
	if (r == 0 && renameat2(AT_FDCWD, tmp, AT_FDCWD, zst, RENAME_NOREPLACE) < 0)
		r = -errno;
	if (r < 0) {
		why = r == -ENOSYS ? "libzstd.so.1 cannot be loaded" : strerror(-r);
		(void)unlink(tmp);
		goto out;
	}
	(void)unlink(plain);
out:
	if (out >= 0) {
		close(out);
		(void)unlink(tmp);
	}
	if (in >= 0)
		close(in);
	if (why)
		h->say("compress", "cannot compress the rotated trace file %s (kept as it is): %s", plain, why);
}

/* The helper thread: its jobs, in order, until stopped with none left. */
static void *helper_main(void *arg)
{
	struct helper *h = arg;

	pthread_mutex_lock(&h->lock);
	for (;;) {
		struct zjob *j = h->head;

		if (!j) {
			if (h->stop)
				break;
			pthread_cond_wait(&h->cond, &h->lock);
			continue;
		}
		h->head = j->next;
		if (!h->head)
			h->tail = &h->head;
		pthread_mutex_unlock(&h->lock);
		if (j->remove) {
			(void)unlink(j->zst);
			(void)unlink(j->plain);
		} else
			helper_compress(h, j->plain, j->zst);
		free(j->plain);
		free(j->zst);
		free(j);
		pthread_mutex_lock(&h->lock);
	}
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

/* Give the helper a job (starting it first); false when it cannot be. */
static bool helper_queue(struct file_sink *f, char *plain, char *zst, bool remove)
{
	struct helper *h = f->helper;
	struct zjob *j;

	if (!h) {
		sigset_t all, old;
		int r;

		h = calloc(1, sizeof(*h));
		if (!h)
			return false;
		pthread_mutex_init(&h->lock, NULL);
		pthread_cond_init(&h->cond, NULL);
		h->tail = &h->head;
		h->min_free = f->opt.min_free;
		h->say = f->say;
		sigfillset(&all); /* the program's signals are not for it */
		pthread_sigmask(SIG_SETMASK, &all, &old);
		r = pthread_create(&h->thread, NULL, helper_main, h);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (r != 0) {
			free(h);
			return false;
		}
		f->helper = h;
	}
	j = calloc(1, sizeof(*j));
	if (!j)
		return false;
	*j = (struct zjob){ .plain = plain, .zst = zst, .remove = remove };
	pthread_mutex_lock(&h->lock);
	*h->tail = j;
	h->tail = &j->next;
	pthread_cond_signal(&h->cond);
	pthread_mutex_unlock(&h->lock);
	return true;
}

/* Let the helper finish its jobs, and end it. */
static void helper_stop(struct file_sink *f)
{
	struct helper *h = f->helper;

	if (!h)
		return;
	pthread_mutex_lock(&h->lock);
	h->stop = true;
	pthread_cond_signal(&h->cond);
	pthread_mutex_unlock(&h->lock);
	pthread_join(h->thread, NULL);
	pthread_mutex_destroy(&h->lock);
	pthread_cond_destroy(&h->cond);
	free(h);
	f->helper = NULL;
}

/* V, or null when not KNOWN. */
static void u64_or_null(struct strbuf *b, uint64_t v, bool known)
{
	if (known)
		ct_json_u64(b, v);
	else
		strbuf_add(b, "null", 4);
}

/* A rotated file in trace.rotated: {"file":NAME,"first_seq":A,"last_seq":B}. */
static void rotated_json(struct strbuf *b, const struct file_sink *f, const struct rotated *r)
{
	_cleanup_free_ char *name = rotated_name(f, r->index, f->opt.compress == COMPRESS_ZSTD);
	const char *base = name ? strrchr(name, '/') : NULL;

	strbuf_add(b, "{\"file\":", 8);
	if (name)
		ct_json_str(b, base ? base + 1 : name);
	else
		strbuf_add(b, "null", 4);
	strbuf_add(b, ",\"first_seq\":", 13);
	u64_or_null(b, r->first, r->first != 0);
	strbuf_add(b, ",\"last_seq\":", 12);
	u64_or_null(b, r->last, r->first != 0);
	strbuf_add(b, "}", 1);
}

/* The trace.rotated record that starts the new file (with its newline):
 * the file before it (PREV), and those the keep limit removed. */
static char *rotated_record(const struct file_sink *f, const struct rotated *prev, const struct rotated *removed,
			    size_t n_removed, size_t *len)
{
	struct strbuf b = { 0 }, ids = { 0 };

	ct_record_ids(&ids, f->pid, (int)syscall(SYS_gettid), 0, 0, NULL);
	ct_record_head(&b, &(struct ct_record_head){
				   .seq = prev->last,
				   .ts = now_ns(),
				   .ids = ids.s,
				   .ids_len = ids.len,
				   .ev = EV_TRACE_ROTATED,
				   .ph = PH_INSTANT,
			   });
	strbuf_add(&b, ",\"previous\":", 12);
	rotated_json(&b, f, prev);
	strbuf_add(&b, ",\"removed\":[", 12);
	for (size_t i = 0; i < n_removed; i++) {
		if (i)
			strbuf_add(&b, ",", 1);
		rotated_json(&b, f, &removed[i]);
	}
	strbuf_add(&b, "],\"removed_files\":", 18);
	ct_json_u64(&b, n_removed);
	strbuf_add(&b, ",\"removed_through\":", 19);
	u64_or_null(&b, f->removed_through, f->removed_through != 0);
	strbuf_add(&b, "}\n", 2);
	strbuf_free(&ids);
	if (b.oom || ids.oom) {
		strbuf_free(&b);
		*len = 0;
		return NULL;
	}
	*len = b.len;
	return b.s;
}

/* Rename the file (locked, ours) away as rotated file N and go on in a new
 * PATH, locked in its place, which starts with a trace.rotated record;
 * queue its compression and the removal of what keep lets go.  False when
 * the file stays as it was (said once; rotation is off from then on). */
static bool file_rotate(struct ct_sink *s, struct file_sink *f)
{
	struct rotated prev = { 0, f->cur_first, f->file_seq }, *removed = NULL;
	size_t n_removed = 0, len;
	_cleanup_free_ char *line = NULL;
	char *plain = NULL, *zst = NULL;
	const char *why = NULL;
	struct stat cur, at;
	bool floored = false;
	int fd = -1;

	/* PATH must still be this file: not one another process put there */
	if (fstat(f->fd, &cur) < 0 || lstat(f->path, &at) < 0 || cur.st_dev != at.st_dev || cur.st_ino != at.st_ino) {
		why = "it is no longer the file at that path";
		goto fail;
	}
	/* before the rename: a death anywhere from here on merges the mirror
	 * into the new file, after what is in this one */
	stage_files_rotated(f->file_seq);
	floored = true;
	for (unsigned tries = 0; tries < 1000 && !why; tries++, f->next_index++) {
		free(plain);
		free(zst);
		plain = rotated_name(f, f->next_index, false);
		zst = rotated_name(f, f->next_index, true);
		if (!plain || !zst)
			why = strerror(ENOMEM);
		else if (access(zst, F_OK) == 0)
			continue; /* another trace's (a pid used again): never touched */
		else if (renameat2(AT_FDCWD, f->path, AT_FDCWD, plain, RENAME_NOREPLACE) == 0)
			break;
		else if (errno != EEXIST)
			why = strerror(errno);
	}
	if (!why && (fd = file_open_path(f->path)) < 0) {
		why = strerror(-fd);
		(void)renameat2(AT_FDCWD, plain, AT_FDCWD, f->path, RENAME_NOREPLACE); /* as it was */
	}
	if (why)
		goto fail;
	f->floor = f->file_seq;
	(void)flock(fd, LOCK_EX);
	(void)flock(f->fd, LOCK_UN);
	close(f->fd);
	f->fd = fd;
	f->n_since_stat = 0; /* what went before is in the file rotated out */
	f->cur_first = 0;
	prev.index = f->next_index++;

	/* keep: the files rotated out that stay, this one among them */
	if (f->opt.keep) {
		struct rotated *v = reallocarray(f->old, f->n_old + 1, sizeof(*v));

		if (v) {
			f->old = v;
			f->old[f->n_old++] = prev;
		}
		if (v && f->n_old > f->opt.keep - 1) {
			n_removed = f->n_old - (f->opt.keep - 1);
			removed = malloc(n_removed * sizeof(*removed));
			if (removed)
				memcpy(removed, f->old, n_removed * sizeof(*removed));
			else
				n_removed = 0;
			memmove(f->old, f->old + n_removed, (f->n_old - n_removed) * sizeof(*f->old));
			f->n_old -= n_removed;
		}
	}
	/* the helper: compress this one (unless removed at once), remove those */
	bool gone_now = n_removed && removed[n_removed - 1].index == prev.index;

	if (!gone_now && f->opt.compress == COMPRESS_ZSTD && helper_queue(f, plain, zst, false))
		plain = zst = NULL;
	for (size_t i = 0; i < n_removed; i++) {
		char *p = rotated_name(f, removed[i].index, false), *z = rotated_name(f, removed[i].index, true);

		if (!p || !z || !helper_queue(f, p, z, true)) {
			/* no helper: remove them here, a rare path */
			if (p)
				(void)unlink(p);
			if (z)
				(void)unlink(z);
			free(p);
			free(z);
		}
	}
	f->removed += n_removed;
	for (size_t i = 0; i < n_removed; i++)
		if (removed[i].last > f->removed_through)
			f->removed_through = removed[i].last;
	line = rotated_record(f, &prev, removed, n_removed, &len);
	if (line) {
		size_t done;

		if (write_counted(f->fd, line, len, &done) < 0 && done)
			(void)ftruncate(f->fd, 0); /* no torn line: the record is only a note */
	}
	free(removed);
	free(plain);
	free(zst);
	return true;
fail:
	if (floored)
		stage_files_rotated(f->floor); /* as it was */
	f->say(s->where, "cannot rotate the trace file %s (it grows on past max-size): %s", f->path, why);
	f->opt.max_size = 0;
	free(plain);
	free(zst);
	return false;
}

/* min-free: may LEN more bytes be written?  The free space is asked at
 * most every ROOM_EVERY_NS, and before every write once less than
 * ROOM_NEAR is left (the crash mirror beside the file grows meanwhile);
 * what is written in between is taken off it.  The file stops
 * ROOM_MARGIN short of min-free: the mirror, whose growth stops at
 * min-free itself (stage.c), takes the last of it. */
#define ROOM_NEAR (16u << 20)
#define ROOM_MARGIN (2u * FILE_BUFFER_SIZE)
static bool file_room(struct file_sink *f, size_t len)
{
	uint64_t now = mono_coarse_ns();
	struct statvfs v;

	if (now >= f->next_room_ns || f->room < ROOM_NEAR) {
		f->next_room_ns = now + ROOM_EVERY_NS;
		if (fstatvfs(f->fd, &v) == 0 && v.f_blocks) {
			unsigned __int128 avail = (unsigned __int128)v.f_bavail * v.f_frsize,
					  floor = ct_min_free_floor(v.f_blocks, v.f_frsize, f->opt.min_free) + ROOM_MARGIN;

			f->room = avail <= floor ? 0 : avail - floor > UINT64_MAX ? UINT64_MAX : (uint64_t)(avail - floor);
		} else
			f->room = UINT64_MAX; /* cannot tell: no check */
	}
	if (len > f->room)
		return false;
	f->room -= len;
	return true;
}

/* Put D[0..len), N whole lines, into a regular file, whole or not at all,
 * under the file's flock (see the top); false when the lock cannot be had
 * (the caller writes without it). */
static bool file_put_whole(struct ct_sink *s, struct file_sink *f, const char *d, size_t len, uint64_t n,
			   uint64_t drops)
{
	off_t start;
	size_t done;
	int r;

	if (flock(f->fd, LOCK_EX) < 0)
		return false;
	start = lseek(f->fd, 0, SEEK_END);
	/* max-size: rotate before a write that would pass it (not for a first
	 * write bigger than it, nor before any record of ours is in) */
	if (start > 0 && f->opt.max_size && f->file_seq > f->floor &&
	    ((uint64_t)start >= f->opt.max_size || len > f->opt.max_size - (uint64_t)start) && file_rotate(s, f))
		start = lseek(f->fd, 0, SEEK_END);
	if (start >= 0 && f->opt.min_free && !file_room(f, len)) {
		ct_sink_lost(s, n, f->low);
		ct_sink_unreport(s, (int64_t)drops);
		f->in_error = true;
		f->holding = true;
		(void)flock(f->fd, LOCK_UN);
		return true;
	}
	r = start < 0 ? -errno : write_counted(f->fd, d, len, &done);
	if (r == 0) {
		f->n_since_stat += n;
		if (!f->cur_first)
			f->cur_first = f->buf_first;
		f->file_seq = f->buf_seq;
		if (f->in_error) {
			f->in_error = false;
			ct_sink_recovered(s);
		}
	} else {
		/* cut the part the disk took: nothing of a failed write stays */
		if (start >= 0 && done && ftruncate(f->fd, start) < 0) {
			/* cannot cut (a quota, a file system that refuses): keep
			 * the whole lines and owe the rest, as without the lock */
			const char *nl = memrchr(d, '\n', done);
			size_t whole = nl ? (size_t)(nl - d) + 1 : 0;
			const char *eol = done > whole ? memchr(d + done, '\n', len - done) : NULL;

			n -= count_lines(d, whole);
			f->n_since_stat += count_lines(d, whole);
			drops = whole ? 0 : drops; /* held back, a drop record comes first */
			if (whole)
				f->file_seq = line_seq(d, whole - 1);
			if (eol && !file_untear(f, done - whole, d + done, (size_t)(eol - (d + done)) + 1)) {
				n--;
				f->file_seq = line_seq(d, (size_t)(eol - d)); /* the torn line, completed later */
			}
		}
		file_failed(s, f, r, n, drops);
	}
	(void)flock(f->fd, LOCK_UN);
	return true;
}

/* Put D[0..len), N whole lines, into the file; count those that do not
 * reach it.  Afterwards the file ends at a line boundary, or the rest of
 * its last line is owed. */
static void file_put(struct ct_sink *s, struct file_sink *f, const char *d, size_t len, uint64_t n, uint64_t drops)
{
	const char *nl, *eol;
	size_t done, whole;
	uint64_t lost, now = mono_coarse_ns();
	int r;

	/* removed?  Asked at most every STAT_EVERY_NS (an fstat per round was
	 * 2.6 % of the tracer's time on a throwing web service); what goes into
	 * a removed file meanwhile is counted lost with it */
	if (f->gone[0] || now >= f->next_stat_ns) {
		f->next_stat_ns = now + STAT_EVERY_NS;
		file_check_removed(s, f, true);
	}
	if (f->gone[0]) {
		ct_sink_lost(s, n, f->gone);
		ct_sink_unreport(s, (int64_t)drops);
		f->holding = true;
		return;
	}
	if (f->owed_len) {
		r = write_counted(f->fd, f->owed, f->owed_len, &done);
		f->torn += done;
		if (r < 0) {
			memmove(f->owed, f->owed + done, f->owed_len - done);
			f->owed_len -= done;
			file_failed(s, f, r, n, drops);
			return;
		}
		file_forget_owed(f);
		f->n_since_stat++;
	}
	if (f->regular && file_put_whole(s, f, d, len, n, drops))
		return;
	r = write_counted(f->fd, d, len, &done);
	if (r == 0) {
		f->n_since_stat += n;
		if (f->in_error) {
			f->in_error = false;
			ct_sink_recovered(s);
		}
		return;
	}
	nl = done ? memrchr(d, '\n', done) : NULL;
	whole = nl ? (size_t)(nl - d) + 1 : 0;
	lost = n - count_lines(d, whole);
	f->n_since_stat += n - lost;
	if (done > whole) {
		eol = memchr(d + done, '\n', len - done);
		if (eol && !file_untear(f, done - whole, d + done, (size_t)(eol - (d + done)) + 1))
			lost--; /* not lost yet: owed */
	}
	file_failed(s, f, r, lost, whole ? 0 : drops);
}

/* Write the buffer out, then empty it. */
static void file_write_out(struct ct_sink *s, struct file_sink *f)
{
	if (f->used)
		file_put(s, f, f->buf, f->used, f->n, f->buf_drops);
	f->used = 0;
	f->n = 0;
	f->buf_drops = 0;
}

/* Where the count of trace.dropped record R (our own writer's JSON)
 * starts and ends, and its value; false if it has none. */
static bool drop_count(const struct ct_rec *r, size_t *at, size_t *end, uint64_t *count)
{
	const char *c = memmem(r->line, r->len, "\"count\":", 8);
	char *e;

	if (!c)
		return false;
	*count = strtoull(c + 8, &e, 10);
	*at = (size_t)(c + 8 - r->line);
	*end = (size_t)(e - r->line);
	return *end > *at && *end <= r->len;
}

/* R, a file sink's trace.dropped, ends the holding back (see struct
 * file_sink): in a regular file its count becomes the exact gap before
 * it, the records numbered between the loss count's hand-over and R
 * included, and the sink's unreported count follows.  Into D (room for
 * R and 20 more bytes); its length. */
static size_t drop_record_exact(struct ct_sink *s, struct file_sink *f, const struct ct_rec *r, char *d)
{
	size_t at, end, k;
	uint64_t count, gap;

	if (!f->regular || !drop_count(r, &at, &end, &count) || r->seq <= f->file_seq) {
		memcpy(d, r->line, r->len);
		return r->len;
	}
	gap = r->seq - f->file_seq - 1;
	/* gap > count: records lost after the hand-over, told here now */
	ct_sink_unreport(s, (int64_t)count - (int64_t)gap);
	f->told_from = f->file_seq;
	f->told_through = r->seq;
	memcpy(d, r->line, at);
	k = (size_t)sprintf(d + at, "%" PRIu64, gap);
	memcpy(d + at + k, r->line + end, r->len - end);
	return at + k + r->len - end;
}

/* Append one record; write the buffer out when it is full. */
static void file_write(struct ct_sink *s, const struct ct_rec *r)
{
	struct file_sink *f = s->data;
	size_t at, end;
	uint64_t count;

	if (f->holding) {
		if (r->event != EV_TRACE_DROPPED || !memmem(r->line, r->len, "\"sink\":\"file\"", 13)) {
			ct_sink_lost(s, 1, s->reason[0] ? s->reason : "held back after a loss");
			return;
		}
		/* it and what follows go out, or hold again */
		f->holding = false;
		if (f->used + r->len + 21 > FILE_BUFFER_SIZE)
			file_write_out(s, f);
		if (r->len + 21 <= FILE_BUFFER_SIZE) {
			if (!f->n)
				f->buf_first = r->seq;
			size_t len = drop_record_exact(s, f, r, f->buf + f->used);
			struct ct_rec w = { .line = f->buf + f->used, .len = len };

			f->buf_drops += drop_count(&w, &at, &end, &count) ? count : 0;
			f->used += len;
			f->buf[f->used++] = '\n';
			f->n++;
			f->buf_seq = r->seq;
			return;
		}
	}
	if (r->seq > f->told_from && r->seq < f->told_through) {
		/* already counted in a trace.dropped's gap: lost, and told */
		ct_sink_lost(s, 1, s->reason[0] ? s->reason : "came after its loss was told");
		ct_sink_unreport(s, -1);
		return;
	}
	if (f->used + r->len + 1 > FILE_BUFFER_SIZE)
		file_write_out(s, f);
	if (!f->n)
		f->buf_first = r->seq;
	if (r->event == EV_TRACE_DROPPED && drop_count(r, &at, &end, &count))
		f->buf_drops += count;
	f->buf_seq = r->seq;
	if (r->len + 1 > FILE_BUFFER_SIZE) {
		/* a record bigger than the buffer goes out on its own, in order */
		char *one = malloc(r->len + 1);

		if (one) {
			memcpy(one, r->line, r->len);
			one[r->len] = '\n';
			file_put(s, f, one, r->len + 1, 1, f->buf_drops);
			f->buf_drops = 0;
			free(one);
		} else
			ct_sink_lost(s, 1, strerror(ENOMEM));
		return;
	}
	memcpy(f->buf + f->used, r->line, r->len);
	f->used += r->len;
	f->buf[f->used++] = '\n';
	f->n++;
}

/* Push everything buffered to the file; while records are held back, ask
 * for the trace.dropped that may release them. */
static void file_flush(struct ct_sink *s, bool dying)
{
	struct file_sink *f = s->data;

	file_write_out(s, f);
	if (f->holding)
		ct_sink_recovered(s);
}

/* Flush and close. */
static void file_close(struct ct_sink *s)
{
	struct file_sink *f = s->data;

	file_flush(s, false);
	file_check_removed(s, f, false); /* the last records went into a removed file? */
	if (f->owed_len) {
		/* the disk never took the rest of the torn line: cut it if we can */
		off_t end = lseek(f->fd, 0, SEEK_CUR);
		struct stat st;

		if (end >= (off_t)f->torn && fstat(f->fd, &st) == 0 && st.st_size == end)
			(void)ftruncate(f->fd, end - (off_t)f->torn);
		ct_sink_lost(s, 1, s->reason[0] ? s->reason : "write error");
		file_forget_owed(f);
	}
	close(f->fd);
	helper_stop(f); /* the files rotated out are compressed before the exit */
	free(f->old);
	free(f->buf);
	free(f->path);
	free(f);
	s->data = NULL;
}

const struct ct_sink_ops ct_sink_file_ops = {
	.kind = OUT_FILE,
	.open = file_open,
	.write = file_write,
	.flush = file_flush,
	.close = file_close,
};
