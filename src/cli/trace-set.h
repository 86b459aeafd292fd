/* SPDX-License-Identifier: MIT */
/* The files the readers read, in order: the operands, each a file, a
 * rotated set or a directory holding one (trace-set.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct set_file {
	char *path;          /* "-" for standard input */
	char *alt;           /* to read instead when PATH is gone or is a .zst
			      * without libzstd (its plain twin), else NULL */
	bool zst;            /* PATH is zstd-compressed */
	uint64_t first_line; /* set by the reader: the lines of the files before */
};

/* Expand the N operands OPS into *RET (*RET_N files, in reading order).
 * On bad input says so in one line ("CMD: ...") and returns a negative
 * errno. */
int trace_set_expand(const char *cmd, char *const *ops, size_t n, struct set_file **ret, size_t *ret_n);
void trace_set_free(struct set_file *f, size_t n);
