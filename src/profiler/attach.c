/* SPDX-License-Identifier: MIT */
/*
 * Attach: `clrtrace attach` sends the CLRTRACE_* variables `run` would set
 * as the AttachProfiler client data (NAME=VALUE\0 one after the other).
 * InitializeForAttach starts like Initialize, with the configuration read
 * from them instead of the environment.  Every category's mask is in
 * COR_PRF_ALLOWABLE_AFTER_ATTACH but transitions, which the CLI refuses
 * before sending; the runtime would refuse it in SetEventMask2 anyway.
 */
#include <stdlib.h>
#include <string.h>

#include "profiler/core/tracer.h"
#include "profiler/start.h"
#include "common/util.h"

#define CLIENT_DATA_MAX 65536 /* an IPC message is at most 64 KiB */

/* the handlers callbacks.c reaches (weak there) */
HRESULT on_InitializeForAttach(struct ct_thread *t, com_object *info_unk, void *data, uint32_t cb);

/* The client data of the attach (a copy: the runtime's is valid only
 * during the call). */
static char *client_data;
static size_t client_len;

/* A configuration variable, from the client data. */
static const char *client_getenv(const char *name)
{
	size_t l = strlen(name);

	for (size_t i = 0; i < client_len; i += strlen(client_data + i) + 1)
		if (strncmp(client_data + i, name, l) == 0 && client_data[i + l] == '=')
			return client_data + i + l + 1;
	return NULL;
}

/* Is the client data a list of CLRTRACE_NAME=VALUE strings, each ended by
 * a NUL?  (It comes from another process: check it all.) */
static bool client_data_valid(const char *p, size_t n)
{
	if (n == 0)
		return true;
	if (n > CLIENT_DATA_MAX || p[n - 1] != 0)
		return false;
	for (size_t i = 0; i < n; i += strlen(p + i) + 1)
		if (!startswith(p + i, "CLRTRACE_") || !strchr(p + i, '='))
			return false;
	return true;
}

/* Loaded into a running process: configuration from the client data. */
HRESULT on_InitializeForAttach(struct ct_thread *t, com_object *info_unk, void *data, uint32_t cb)
{
	const struct ct_start start = { .how = LOAD_ATTACH, .getenv = client_getenv };
	HRESULT hr;

	if (client_data || atomic_load(&ct.active)) /* a second attach of this copy */
		return CORPROF_E_PROFILER_ALREADY_ACTIVE;
	if ((cb && !data) || !client_data_valid(data, cb)) {
		ct_say_once("attach-data", "attach: the client data is not a list of CLRTRACE_* variables; not tracing");
		return E_INVALIDARG;
	}
	client_data = malloc(cb + 1);
	if (!client_data)
		return E_OUTOFMEMORY;
	if (cb)
		memcpy(client_data, data, cb);
	client_data[cb] = 0;
	client_len = cb;
	hr = ct_start(t, info_unk, &start);
	if (FAILED(hr)) {
		free(client_data);
		client_data = NULL;
	}
	return hr;
}
