/* SPDX-License-Identifier: MIT */
/*
 * The JSON Lines file sink.  Records go into one of two buffers; when it
 * fills, the buffers swap and the full one is written with one write(2)
 * after the emit lock is released (drain), so other threads keep appending
 * meanwhile.  The flusher and the death paths write both.  Write errors and
 * a removed file are counted, never fatal.
 *
 * The buffers are a shared mapping of FILE.<pid>.pending: a process that
 * dies with no chance to flush (Environment.FailFast, whose abort path
 * resets every signal handler; kill -9) leaves its last records there, and
 * `clrtrace run` or `clrtrace recover` appends them to FILE.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pending.h"
#include "sink.h"
#include "tracer.h"
#include "util.h"

#define FILE_BUFFER_SIZE (256 * 1024)

struct file_buf {
	char *data;
	size_t used;
	uint64_t n; /* records in it */
};

struct file_sink {
	pthread_mutex_t lock;   /* the buffers, active, full */
	pthread_cond_t written; /* the full buffer went out */
	pthread_mutex_t io;     /* one writer at a time: buffers go out in order */
	int fd;
	char *path;
	struct file_buf b[2];
	int active;             /* the buffer records go into */
	bool full;              /* the other one holds records not yet written */
	uint64_t gen;
	struct pending_header *pending; /* mapping of FILE.<pid>.pending, or NULL */
	char *pending_path;
	int pending_fd;         /* holds the writer's lock on it */
	char *heap;             /* the buffers when there is no mapping */
	uint64_t n_since_stat;  /* records written since the last link check */
	bool ever_written;
	bool in_error;
};

/* Open PATH for appending, never through a symlink. */
static int file_open_path(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);

	return fd < 0 ? -errno : fd;
}

/* Open the sink from its template. */
static int file_open(struct ct_sink *s, const struct ct_output *o, char **why)
{
	struct file_sink *f;
	char *path;
	int fd;

	path = config_expand_path(o->path, ct.pid, ct.program, (long long)(ct.start_ns / 1000000000u));
	if (!path)
		return -ENOMEM;
	fd = file_open_path(path);
	if (fd < 0) {
		if (asprintf(why, "cannot open trace file %s: %s", path, strerror(-fd)) < 0)
			*why = NULL;
		free(path);
		return fd;
	}
	f = calloc(1, sizeof(*f));
	if (f && pending_create(path, fd, FILE_BUFFER_SIZE, &f->pending, &f->pending_path, &f->pending_fd) == 0) {
		f->b[0].data = pending_data(f->pending, 0);
		f->b[1].data = pending_data(f->pending, 1);
	} else if (f && (f->heap = malloc(2 * FILE_BUFFER_SIZE))) {
		f->b[0].data = f->heap;
		f->b[1].data = f->heap + FILE_BUFFER_SIZE;
	}
	if (!f || !f->b[0].data) {
		free(f);
		close(fd);
		free(path);
		return -ENOMEM;
	}
	pthread_mutex_init(&f->lock, NULL);
	pthread_mutex_init(&f->io, NULL);
	pthread_cond_init(&f->written, NULL);
	f->fd = fd;
	f->path = path;
	s->data = f;
	s->where = strdup(path);
	return 0;
}

/* If the file was removed, count what went into it as lost and reopen.
 * Caller holds f->io. */
static void file_check_removed(struct ct_sink *s, struct file_sink *f)
{
	struct stat st;
	int fd;

	if (fstat(f->fd, &st) < 0 || st.st_nlink > 0)
		return;
	if (f->n_since_stat)
		ct_sink_lost(s, f->n_since_stat, "trace file removed while in use");
	f->n_since_stat = 0;
	fd = file_open_path(f->path);
	if (fd >= 0) {
		close(f->fd);
		f->fd = fd;
		ct_sink_recovered(s);
	}
}

/* Write buffer I out, then empty it.  Caller holds f->io, not f->lock:
 * appends to the other buffer go on meanwhile. */
static void file_write_out(struct ct_sink *s, struct file_sink *f, int i)
{
	struct file_buf *b = &f->b[i];
	int r = 0;

	if (b->used) {
		file_check_removed(s, f);
		r = write_all(f->fd, b->data, b->used);
		if (r < 0) {
			ct_sink_lost(s, b->n, strerror(-r));
			f->in_error = true;
			if (!f->ever_written)
				s->failed_hard = true;
		} else {
			f->ever_written = true;
			s->failed_hard = false;
			f->n_since_stat += b->n;
			if (f->in_error) {
				f->in_error = false;
				ct_sink_recovered(s);
			}
		}
	}
	pthread_mutex_lock(&f->lock);
	b->used = 0;
	b->n = 0;
	if (f->pending)
		pending_set_used(f->pending, i, 0);
	if (i != f->active)
		f->full = false;
	pthread_cond_broadcast(&f->written);
	pthread_mutex_unlock(&f->lock);
}

/* Make the active buffer the full one and start on the other.  Caller
 * holds f->lock and has checked that the other one is empty. */
static void file_swap(struct file_sink *f)
{
	f->full = true;
	f->active ^= 1;
	if (f->pending)
		f->pending->gen[f->active] = ++f->gen;
}

/* Append one record (under the emit lock: never writes, except to wait
 * for the previous full buffer when both are full). */
static void file_write(struct ct_sink *s, const struct ct_rec *r)
{
	struct file_sink *f = s->data;
	struct file_buf *b;

	pthread_mutex_lock(&f->lock);
	if (f->b[f->active].used + r->len + 1 > FILE_BUFFER_SIZE && f->b[f->active].used) {
		while (f->full) /* the disk is slower than the program: wait */
			pthread_cond_wait(&f->written, &f->lock);
		file_swap(f);
		atomic_store(&s->drain_wanted, true);
	}
	b = &f->b[f->active];
	if (r->len + 1 > FILE_BUFFER_SIZE) {
		/* a record bigger than a buffer goes out on its own, in order */
		pthread_mutex_unlock(&f->lock);
		pthread_mutex_lock(&f->io);
		if (f->full)
			file_write_out(s, f, f->active ^ 1);
		int e = write_all(f->fd, r->line, r->len);
		if (!e)
			e = write_all(f->fd, "\n", 1);
		if (e < 0)
			ct_sink_lost(s, 1, strerror(-e));
		pthread_mutex_unlock(&f->io);
		return;
	}
	memcpy(b->data + b->used, r->line, r->len);
	b->used += r->len;
	b->data[b->used++] = '\n';
	b->n++;
	if (f->pending)
		pending_set_used(f->pending, f->active, b->used);
	pthread_mutex_unlock(&f->lock);
}

/* Lock f->io; when DYING, give up after two seconds (a thread that died
 * holding it must not hang the exit). */
static bool file_lock_io(struct file_sink *f, bool dying)
{
	struct timespec ts;

	if (!dying)
		return pthread_mutex_lock(&f->io) == 0;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 2;
	return pthread_mutex_timedlock(&f->io, &ts) == 0;
}

/* After the emit lock: write the buffer that just filled. */
static void file_drain(struct ct_sink *s)
{
	struct file_sink *f = s->data;
	int full = -1;

	pthread_mutex_lock(&f->io);
	pthread_mutex_lock(&f->lock);
	if (f->full)
		full = f->active ^ 1;
	pthread_mutex_unlock(&f->lock);
	if (full >= 0)
		file_write_out(s, f, full);
	pthread_mutex_unlock(&f->io);
}

/* Push everything buffered to the file: the full buffer, then the active. */
static void file_flush(struct ct_sink *s, bool dying)
{
	struct file_sink *f = s->data;
	int first = -1, second = -1;

	if (!file_lock_io(f, dying))
		return;
	pthread_mutex_lock(&f->lock);
	if (f->full)
		first = f->active ^ 1;
	pthread_mutex_unlock(&f->lock);
	if (first >= 0)
		file_write_out(s, f, first);
	pthread_mutex_lock(&f->lock);
	if (f->b[f->active].used && !f->full) {
		file_swap(f);
		second = f->active ^ 1;
	}
	pthread_mutex_unlock(&f->lock);
	if (second >= 0)
		file_write_out(s, f, second);
	pthread_mutex_unlock(&f->io);
}

/* Flush and close. */
static void file_close(struct ct_sink *s)
{
	struct file_sink *f = s->data;

	file_flush(s, false);
	close(f->fd);
	pthread_mutex_destroy(&f->lock);
	pthread_mutex_destroy(&f->io);
	pthread_cond_destroy(&f->written);
	if (f->pending) {
		/* everything is in FILE now: the mirror has nothing to tell */
		pending_remove(f->pending, f->pending_path, f->pending_fd);
		free(f->pending_path);
	}
	free(f->heap);
	free(f->path);
	free(f);
	s->data = NULL;
}

const struct ct_sink_ops ct_sink_file_ops = {
	.kind = OUT_FILE,
	.open = file_open,
	.write = file_write,
	.drain = file_drain,
	.flush = file_flush,
	.close = file_close,
};
