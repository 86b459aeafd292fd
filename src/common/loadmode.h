/* SPDX-License-Identifier: MIT */
/* How the runtime loaded clrtrace, and what each way allows (loadmode.c). */
#pragma once

#include <stdint.h>

enum ct_load {
	LOAD_STARTUP,      /* the main profiler, from CORECLR_PROFILER */
	LOAD_ATTACH,       /* into a running process (diagnostics IPC) */
	LOAD_NOTIFICATION, /* beside a main profiler (CORECLR_NOTIFICATION_PROFILERS) */
	_LOAD_MAX,
};

/* The profiler's CLSIDs, as the runtime's variables spell them: the main
 * one, and the one that asks to be loaded as a notification profiler. */
#define CT_CLSID_STRING "{94D19DC5-3374-47C3-9729-75E330DECA23}"
#define CT_CLSID_NOTIFICATION_STRING "{94D19DC5-3374-47C3-9729-75E330DECA24}"
/* Not a class: an AttachProfiler naming it asks the copy of clrtrace that
 * `clrtrace attach` loaded from that library to detach. */
#define CT_CLSID_DETACH_STRING "{94D19DC5-3374-47C3-9729-75E330DECA25}"

/* "startup", "attach", "notification" (runtime.init's loaded). */
const char *ct_load_to_string(enum ct_load how);
/* The categories of the bit set CATS whose callbacks the runtime refuses
 * to a profiler loaded so (its allowed event mask). */
unsigned ct_load_refused(enum ct_load how, unsigned cats);
