/* SPDX-License-Identifier: MIT */
/* FILE.<pid>.pending: create, remove, recover (see pending.h). */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pending.h"
#include "util.h"

/* Create and map PATH.<pid>.pending with two buffers of SIZE bytes. */
int pending_create(const char *path, size_t size, struct pending_header **ret, char **ret_path)
{
	_cleanup_free_ char *p = NULL;
	struct pending_header *h;
	int fd, r;

	/* one per process: several processes may share one trace file */
	if (asprintf(&p, "%s.%d.pending", path, (int)getpid()) < 0)
		return -ENOMEM;
	fd = open(p, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	/* allocate the blocks now: a store into a hole of a full disk would
	 * be a SIGBUS in the traced program */
	r = posix_fallocate(fd, 0, (off_t)(PENDING_DATA_OFFSET + 2 * size));
	if (r != 0) {
		close(fd);
		unlink(p);
		return -r;
	}
	h = mmap(NULL, PENDING_DATA_OFFSET + 2 * size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	r = h == MAP_FAILED ? -errno : 0;
	close(fd);
	if (r < 0) {
		unlink(p);
		return r;
	}
	memcpy(h->magic, PENDING_MAGIC, 8);
	h->pid = getpid();
	h->n_bufs = 2;
	h->buf_size = size;
	*ret = h;
	*ret_path = TAKE_PTR(p);
	return 0;
}

/* Unmap and delete the mirror. */
void pending_remove(struct pending_header *h, const char *pending_path)
{
	munmap(h, PENDING_DATA_OFFSET + 2 * h->buf_size);
	unlink(pending_path);
}

/* Read a whole file; NULL on error. */
static char *read_all(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	struct stat st;
	char *buf;
	ssize_t k;
	size_t n = 0;

	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size > (1 << 30)) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	buf = malloc((size_t)st.st_size + 1);
	while (buf && n < (size_t)st.st_size && (k = read(fd, buf + n, (size_t)st.st_size - n)) > 0)
		n += (size_t)k;
	close(fd);
	if (buf)
		buf[n] = 0;
	*len = n;
	return buf;
}

/* The seq of a record line of process PID, or 0. */
static uint64_t line_seq(const char *line, size_t n, int pid)
{
	char pidfield[32];
	const char *q;

	if (n < 16 || strncmp(line, "{\"v\":1,\"seq\":", 13) != 0)
		return 0;
	snprintf(pidfield, sizeof(pidfield), ",\"pid\":%d,", pid);
	q = memmem(line, n, pidfield, strlen(pidfield));
	if (!q)
		return 0;
	return strtoull(line + 13, NULL, 10);
}

/* Highest seq of PID among the last MB of TRACE. */
static uint64_t last_seq(int fd, int pid)
{
	struct stat st;
	size_t want, got = 0;
	uint64_t best = 0;
	char *buf;

	if (fstat(fd, &st) < 0)
		return 0;
	want = st.st_size > (1 << 20) ? (1 << 20) : (size_t)st.st_size;
	buf = malloc(want + 1);
	if (!buf)
		return 0;
	ssize_t k = pread(fd, buf, want, st.st_size - (off_t)want);
	got = k > 0 ? (size_t)k : 0;
	buf[got] = 0;
	for (char *l = buf, *e; l < buf + got; l = e + 1) {
		e = memchr(l, '\n', (size_t)(buf + got - l));
		if (!e)
			break;
		uint64_t s = line_seq(l, (size_t)(e - l), pid);
		if (s > best)
			best = s;
	}
	free(buf);
	return best;
}

/* Append the lines of D[0..used) whose seq is above *have to FD. */
static int append_newer(int fd, const char *d, size_t used, int pid, uint64_t *have, int *n)
{
	for (const char *l = d, *e; l < d + used; l = e + 1) {
		uint64_t seq;
		int r;

		e = memchr(l, '\n', (size_t)(d + used - l));
		if (!e)
			break;
		seq = line_seq(l, (size_t)(e - l), pid);
		if (seq <= *have)
			continue; /* written before the death already */
		r = write_all(fd, l, (size_t)(e - l + 1));
		if (r < 0)
			return r;
		*have = seq;
		++*n;
	}
	return 0;
}

/* Append the records of one mirror P that TRACE lacks, then delete P. */
static int recover_one(const char *trace, const char *p)
{
	_cleanup_free_ char *data = NULL;
	struct pending_header *h;
	size_t len = 0;
	uint64_t have;
	int fd, n = 0, r = 0;

	data = read_all(p, &len);
	if (!data)
		return -errno;
	h = (struct pending_header *)data;
	if (len < PENDING_DATA_OFFSET || memcmp(h->magic, PENDING_MAGIC, 8) != 0 || h->n_bufs != 2 ||
	    h->buf_size == 0 || PENDING_DATA_OFFSET + 2 * h->buf_size > len)
		return -EBADMSG;
	fd = open(trace, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	have = last_seq(fd, h->pid);
	/* the older buffer first: its records have the lower seqs */
	int first = h->gen[0] <= h->gen[1] ? 0 : 1;
	for (int k = 0; k < 2 && r == 0; k++) {
		int i = k ? 1 - first : first;
		size_t used = (size_t)atomic_load(&h->used[i]);

		if (used > h->buf_size)
			used = 0;
		r = append_newer(fd, pending_data(h, i), used, h->pid, &have, &n);
	}
	close(fd);
	if (r < 0)
		return r;
	unlink(p);
	return n;
}

/* Append the records of every TRACE.<pid>.pending that TRACE lacks, then
 * delete them.  Returns the number of records recovered, or -errno. */
int pending_recover(const char *trace)
{
	_cleanup_free_ char *dir = strdup(trace);
	const char *base;
	char *slash;
	DIR *d;
	struct dirent *de;
	int total = 0, r = 0;

	if (!dir)
		return -ENOMEM;
	slash = strrchr(dir, '/');
	if (slash) {
		*slash = 0;
		base = slash + 1;
	} else
		base = trace;
	d = opendir(slash ? (*dir ? dir : "/") : ".");
	if (!d)
		return -errno;
	size_t bl = strlen(base);
	while ((de = readdir(d))) {
		const char *nm = de->d_name, *mid = nm + bl + 1;
		size_t l = strlen(nm);
		char *p = NULL;

		if (l <= bl + 9 || strncmp(nm, base, bl) != 0 || nm[bl] != '.' || strcmp(nm + l - 8, ".pending") != 0 ||
		    strspn(mid, "0123456789") != (size_t)(nm + l - 8 - mid))
			continue;
		if (asprintf(&p, "%s/%s", slash ? (*dir ? dir : "") : ".", nm) < 0) {
			r = -ENOMEM;
			break;
		}
		int n = recover_one(trace, p);
		free(p);
		if (n < 0)
			r = n;
		else
			total += n;
	}
	closedir(d);
	return r < 0 && total == 0 ? r : total;
}
