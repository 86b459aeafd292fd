/* SPDX-License-Identifier: MIT */
/*
 * What `run` wrote, as the readers take it.  A file sink with max-size
 * rotates PATH = STEM.jsonl out into STEM.N.jsonl, then compresses it into
 * STEM.N.jsonl.zst (any other PATH: PATH.N, PATH.N.zst; file.c's
 * rotated_name), N counting up from 1: a set is its rotated files by N,
 * then PATH.  An operand is
 *  - "-": standard input;
 *  - a directory: the one set in it (its *.jsonl and STEM.N.jsonl.zst files
 *    all of one STEM), else an error;
 *  - a name ending in .zst: that file alone, decompressed;
 *  - any other PATH: its rotated siblings, then PATH (which may be gone
 *    when siblings are there).
 * A file killed between its compression's rename and the removal of its
 * plain file is there twice, the same records: the .zst is read (the
 * plain one without libzstd).  Operands are read one after the other, as
 * cat would, not merged.  Only names are kept: a few bytes per file.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/escape.h"
#include "cli/trace-set.h"
#include "common/util.h"
#include "common/zstd-lazy.h"

/* more rotated files than this in one set is not a trace of ours */
#define MAX_FILES (1u << 20)

struct list {
	struct set_file *v;
	size_t n, cap;
};

/* One rotation number of a set and the forms it is there in. */
struct member {
	uint32_t index;
	bool plain, zst;
};

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t l = strlen(suffix);

	return len >= l && memcmp(s + len - l, suffix, l) == 0;
}

/* Are the LEN bytes at S a rotation number (1 to UINT32_MAX, decimal, no
 * leading zero, as file.c writes it)?  Then it is in *INDEX. */
static bool parse_index(const char *s, size_t len, uint32_t *index)
{
	uint64_t v = 0;

	if (len == 0 || len > 10 || s[0] == '0')
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v > UINT32_MAX)
		return false;
	*index = (uint32_t)v;
	return true;
}

/* "CMD: PATH: what" (PATH escaped); returns ERR. */
static int say(const char *cmd, const char *path, int err, const char *what)
{
	_cleanup_free_ char *q = esc_strdup(path);

	cli_error("%s: %s: %s", cmd, q ? q : "?", what ? what : strerror(-err));
	return err;
}

/* Append PATH (taken, even on failure) to L. */
static int list_add(struct list *l, char *path, char *alt, bool zst)
{
	if (path && l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 8;
		struct set_file *v = reallocarray(l->v, cap, sizeof(*v));

		if (v) {
			l->v = v;
			l->cap = cap;
		}
	}
	if (!path || l->n == l->cap) {
		free(path);
		free(alt);
		return -ENOMEM;
	}
	l->v[l->n++] = (struct set_file){ .path = path, .alt = alt, .zst = zst };
	return 0;
}

static int member_cmp(const void *a, const void *b)
{
	const struct member *x = a, *y = b;

	return x->index < y->index ? -1 : x->index > y->index;
}

/* The rotated siblings of DIR/NAME in DIR (PREFIX.N + a tail) into *RET,
 * sorted by N, each N once. */
static int siblings(const char *cmd, const char *dir, const char *prefix, const char *plain_tail, const char *zst_tail,
		    struct member **ret, size_t *ret_n)
{
	DIR *d = opendir(*dir ? dir : ".");
	struct member *m = NULL;
	size_t n = 0, cap = 0, pl = strlen(prefix), k = 0;
	struct dirent *e;

	*ret = NULL;
	*ret_n = 0;
	if (!d)
		return 0; /* a directory we cannot list: the file alone */
	while ((e = readdir(d))) {
		const char *rest = e->d_name + pl;
		size_t rl;
		uint32_t index;
		bool zst;

		if (strncmp(e->d_name, prefix, pl) != 0)
			continue;
		rl = strlen(rest);
		/* the .zst tail first: a plain tail may be empty */
		if (ends_with(rest, rl, zst_tail) && parse_index(rest, rl - strlen(zst_tail), &index))
			zst = true;
		else if (ends_with(rest, rl, plain_tail) && parse_index(rest, rl - strlen(plain_tail), &index))
			zst = false;
		else
			continue;
		if (n == cap) {
			struct member *v = cap < MAX_FILES ? reallocarray(m, cap ? cap * 2 : 16, sizeof(*v)) : NULL;

			if (!v) {
				closedir(d);
				free(m);
				return say(cmd, dir, -ENOMEM, cap < MAX_FILES ? NULL : "more than a million rotated files");
			}
			m = v;
			cap = cap ? cap * 2 : 16;
		}
		m[n++] = (struct member){ index, !zst, zst };
	}
	closedir(d);
	if (n) /* qsort wants an array, even of none */
		qsort(m, n, sizeof(*m), member_cmp);
	for (size_t i = 0; i < n; i++) { /* a plain and a .zst of one N: one member */
		if (k > 0 && m[k - 1].index == m[i].index) {
			m[k - 1].plain |= m[i].plain;
			m[k - 1].zst |= m[i].zst;
		} else {
			m[k++] = m[i];
		}
	}
	*ret = m;
	*ret_n = k;
	return 0;
}

/* PATH, a file: its rotated siblings, oldest first, then itself. */
static int expand_path(const char *cmd, struct list *l, const char *path)
{
	_cleanup_free_ char *dir = NULL, *prefix = NULL;
	_cleanup_free_ struct member *m = NULL;
	const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
	size_t nl = strlen(name), n = 0;
	struct stat st;
	bool exists = stat(path, &st) == 0, jsonl = nl > 6 && ends_with(name, nl, ".jsonl");
	const char *plain_tail = jsonl ? ".jsonl" : "", *zst_tail = jsonl ? ".jsonl.zst" : ".zst";
	int r;

	if (!exists && errno != ENOENT)
		return say(cmd, path, -errno, NULL);
	if (ends_with(name, nl, ".zst") || (exists && !S_ISREG(st.st_mode)) || nl == 0)
		return exists ? list_add(l, strdup(path), NULL, ends_with(name, nl, ".zst")) : say(cmd, path, -ENOENT, NULL);
	dir = strndup(path, slash ? (size_t)(slash - path) + 1 : 0);
	if (!dir || asprintf(&prefix, "%.*s.", (int)(jsonl ? nl - 6 : nl), name) < 0)
		return say(cmd, path, -ENOMEM, NULL);
	r = siblings(cmd, dir, prefix, plain_tail, zst_tail, &m, &n);
	if (r < 0)
		return r;
	if (!exists && n == 0)
		return say(cmd, path, -ENOENT, NULL);
	for (size_t i = 0; i < n && r == 0; i++) {
		char *plain = NULL, *zst = NULL;

		if (asprintf(&plain, "%s%s%" PRIu32 "%s", dir, prefix, m[i].index, plain_tail) < 0)
			plain = NULL;
		if (asprintf(&zst, "%s%s%" PRIu32 "%s", dir, prefix, m[i].index, zst_tail) < 0)
			zst = NULL;
		if (!plain || !zst) {
			free(plain);
			free(zst);
			r = -ENOMEM;
		} else if (m[i].zst) { /* the plain twin, for when libzstd is missing */
			if (!m[i].plain) {
				free(plain);
				plain = NULL;
			}
			r = list_add(l, zst, plain, true);
		} else { /* the .zst, for when it is compressed before we open it */
			r = list_add(l, plain, zst, false);
		}
	}
	if (r == 0 && exists)
		r = list_add(l, strdup(path), NULL, false);
	return r < 0 ? say(cmd, path, r, NULL) : 0;
}

/* DIR, a directory: the path of the one set in it (DIR/STEM.jsonl). */
static int dir_set(const char *cmd, const char *dir, char **ret)
{
	_cleanup_free_ char *stem = NULL, *other = NULL;
	DIR *d = opendir(dir);
	struct dirent *e;
	int r = 0;

	if (!d)
		return say(cmd, dir, -errno, NULL);
	while ((e = readdir(d)) && !other) {
		const char *nm = e->d_name, *dot;
		size_t l = strlen(nm), sl;
		bool rotated_only = ends_with(nm, l, ".jsonl.zst");
		uint32_t index;

		if (nm[0] == '.' || (!rotated_only && !ends_with(nm, l, ".jsonl")))
			continue;
		sl = l - (rotated_only ? 10 : 6);
		dot = sl ? memrchr(nm, '.', sl) : NULL;
		if (dot && dot > nm && parse_index(dot + 1, sl - (size_t)(dot + 1 - nm), &index))
			sl = (size_t)(dot - nm); /* STEM.N.jsonl[.zst] */
		else if (rotated_only || sl == 0)
			continue; /* a .jsonl.zst of no set */
		if (!stem)
			stem = strndup(nm, sl);
		else if (strlen(stem) != sl || strncmp(stem, nm, sl) != 0)
			other = strndup(nm, sl);
		if (!stem) {
			r = -ENOMEM;
			break;
		}
	}
	closedir(d);
	if (r < 0)
		return say(cmd, dir, r, NULL);
	if (!stem)
		return say(cmd, dir, -ENOENT, "no trace in this directory (no .jsonl file)");
	if (other) {
		_cleanup_free_ char *msg = NULL, *a = esc_strdup(stem), *b = esc_strdup(other);

		if (asprintf(&msg, "more than one trace in this directory (%s.jsonl, %s.jsonl): name one", a ? a : "?",
			     b ? b : "?") < 0)
			msg = NULL;
		return say(cmd, dir, -EINVAL, msg ? msg : "more than one trace in this directory: name one");
	}
	if (asprintf(ret, "%s%s%s.jsonl", dir, ends_with(dir, strlen(dir), "/") ? "" : "/", stem) < 0)
		return say(cmd, dir, -ENOMEM, NULL);
	return 0;
}

void trace_set_free(struct set_file *f, size_t n)
{
	for (size_t i = 0; f && i < n; i++) {
		free(f[i].path);
		free(f[i].alt);
	}
	free(f);
}

int trace_set_expand(const char *cmd, char *const *ops, size_t n, struct set_file **ret, size_t *ret_n)
{
	struct list l = { 0 };
	int r = 0;

	for (size_t i = 0; i < n && r == 0; i++) {
		struct stat st;

		if (strcmp(ops[i], "-") == 0) {
			r = list_add(&l, strdup("-"), NULL, false);
			if (r < 0)
				say(cmd, "-", r, NULL);
		} else if (stat(ops[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			_cleanup_free_ char *base = NULL;

			r = dir_set(cmd, ops[i], &base);
			if (r == 0)
				r = expand_path(cmd, &l, base);
		} else {
			r = expand_path(cmd, &l, ops[i]);
		}
	}
	/* a .zst to read and no libzstd: said before anything is read */
	for (size_t i = 0; i < l.n && r == 0; i++)
		if (l.v[i].zst && !l.v[i].alt && !zstd_can_decompress())
			r = say(cmd, l.v[i].path, -ENOSYS,
				"a zstd-compressed file, and libzstd (libzstd.so.1) cannot be loaded to read it");
	if (r < 0) {
		trace_set_free(l.v, l.n);
		return r;
	}
	*ret = l.v;
	*ret_n = l.n;
	return 0;
}
