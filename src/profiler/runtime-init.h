/* SPDX-License-Identifier: MIT */
/* The runtime.init record (runtime-init.c). */
#pragma once

#include <jansson.h>
#include <stddef.h>

struct ct_thread;

/* The runtime object of runtime.init; sets ct.runtime_major, ct.legacy_eh. */
json_t *ct_runtime_json(void);
/* Emit runtime.init with RUNTIME (stolen) and the command line CMD[0..len). */
void ct_emit_runtime_init(struct ct_thread *t, json_t *runtime, const char *cmd, size_t cmd_len);
