/* SPDX-License-Identifier: MIT */
/*
 * The JSON Lines file sink.  Records are appended to a buffer and written
 * with one write(2) when it fills, when the flusher passes, or on a flush
 * before death.  Write errors and a removed file are counted, never fatal.
 *
 * The buffer is a shared mapping of FILE.<pid>.pending: a process that dies with
 * no chance to flush (Environment.FailFast, whose abort path resets every
 * signal handler; kill -9) leaves its last records there, and
 * `clrtrace run` or `clrtrace recover` appends them to FILE.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pending.h"

#include "sink.h"
#include "tracer.h"
#include "util.h"

#define FILE_BUFFER_SIZE (256 * 1024)

struct file_sink {
	pthread_mutex_t lock;
	int fd;
	char *path;
	char *buf;
	size_t used;
	struct pending_header *pending; /* mapping of FILE.<pid>.pending, or NULL */
	char *pending_path;
	uint64_t n_buffered;   /* records in buf */
	uint64_t n_since_stat; /* records written since the last link check */
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
	if (f && pending_create(path, FILE_BUFFER_SIZE, &f->pending, &f->pending_path) == 0)
		f->buf = pending_data(f->pending);
	else if (f)
		f->buf = malloc(FILE_BUFFER_SIZE);
	if (!f || !f->buf) {
		if (f)
			free(f);
		close(fd);
		free(path);
		return -ENOMEM;
	}
	pthread_mutex_init(&f->lock, NULL);
	f->fd = fd;
	f->path = path;
	s->data = f;
	s->where = strdup(path);
	return 0;
}

/* If the file was removed, count what went into it as lost and reopen. */
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

/* Write the buffer out; on failure its records are counted as lost. */
static void file_write_buffer(struct ct_sink *s, struct file_sink *f)
{
	int r;

	if (f->used == 0)
		return;
	file_check_removed(s, f);
	r = write_all(f->fd, f->buf, f->used);
	if (r < 0) {
		ct_sink_lost(s, f->n_buffered, strerror(-r));
		f->in_error = true;
		if (!f->ever_written)
			s->failed_hard = true;
	} else {
		f->ever_written = true;
		s->failed_hard = false;
		f->n_since_stat += f->n_buffered;
		if (f->in_error) {
			f->in_error = false;
			ct_sink_recovered(s);
		}
	}
	f->used = 0;
	f->n_buffered = 0;
	if (f->pending)
		pending_set_used(f->pending, 0);
}

/* Append one record. */
static void file_write(struct ct_sink *s, const struct ct_rec *r)
{
	struct file_sink *f = s->data;

	pthread_mutex_lock(&f->lock);
	if (f->used + r->len + 1 > FILE_BUFFER_SIZE)
		file_write_buffer(s, f);
	if (r->len + 1 > FILE_BUFFER_SIZE) {
		/* a huge record goes out on its own */
		int e1 = write_all(f->fd, r->line, r->len), e2 = e1 ? e1 : write_all(f->fd, "\n", 1);

		if (e2 < 0)
			ct_sink_lost(s, 1, strerror(-e2));
	} else {
		memcpy(f->buf + f->used, r->line, r->len);
		f->used += r->len;
		f->buf[f->used++] = '\n';
		f->n_buffered++;
		if (f->pending)
			pending_set_used(f->pending, f->used);
	}
	pthread_mutex_unlock(&f->lock);
}

/* Push the buffer to the file. */
static void file_flush(struct ct_sink *s, bool dying)
{
	struct file_sink *f = s->data;

	if (dying) {
		/* the lock may be held by a thread that is gone; don't wait forever */
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 2;
		if (pthread_mutex_timedlock(&f->lock, &ts) != 0)
			return;
	} else
		pthread_mutex_lock(&f->lock);
	file_write_buffer(s, f);
	pthread_mutex_unlock(&f->lock);
}

/* Flush and close. */
static void file_close(struct ct_sink *s)
{
	struct file_sink *f = s->data;

	file_flush(s, false);
	close(f->fd);
	pthread_mutex_destroy(&f->lock);
	if (f->pending) {
		/* everything is in FILE now: the mirror has nothing to tell */
		pending_remove(f->pending, FILE_BUFFER_SIZE, f->pending_path);
		free(f->pending_path);
	} else
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
