/* SPDX-License-Identifier: MIT */
/* The runtime.init record (runtime-init.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct ct_thread;

/* The runtime as runtime.init says it. */
struct ct_runtime_desc {
	bool known; /* the runtime answered: else "runtime":null */
	char version[64];
	char *build; /* NULL: none */
	unsigned major;
	bool legacy_eh, pins_exceptions;
};
/* Ask the runtime into D; sets ct.runtime_major, ct.legacy_eh.  Free with
 * ct_runtime_desc_done. */
void ct_runtime_describe(struct ct_runtime_desc *d);
void ct_runtime_desc_done(struct ct_runtime_desc *d);
/* Emit runtime.init with the runtime D and the command line CMD[0..len). */
void ct_emit_runtime_init(struct ct_thread *t, const struct ct_runtime_desc *d, const char *cmd, size_t cmd_len);
