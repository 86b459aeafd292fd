/* SPDX-License-Identifier: MIT */
/*
 * A small client of the .NET diagnostics IPC: the Unix socket a runtime
 * listens on (dotnet-diagnostic-PID-KEY-socket in its TMPDIR), one command
 * per connection, one reply.  Every function returns 0 (or a count) on
 * success and a negative errno on failure; a reply in which the runtime
 * says no is 1, with its HRESULT.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The command sets and ids used here (ds-types.h). */
enum {
	DIAG_SET_PROFILER = 0x03,
	DIAG_SET_PROCESS = 0x04,
	DIAG_SET_SERVER = 0xFF,
	DIAG_PROFILER_ATTACH = 0x01,
	DIAG_PROCESS_INFO = 0x00,
	DIAG_PROCESS_INFO2 = 0x04,
	DIAG_PROCESS_INFO3 = 0x08,
	DIAG_SERVER_OK = 0x00,
	DIAG_SERVER_ERROR = 0xFF,
};

/* What ProcessInfo, 2 or 3 told (strings malloc'd, NULL when not sent). */
struct diag_process_info {
	int level;          /* 1, 2 or 3: the newest command the runtime answered */
	uint64_t pid;       /* the pid as the runtime sees it (its pid namespace) */
	char *command_line;
	char *os;
	char *arch;
	char *entrypoint;   /* 2+: the managed entry assembly's name */
	char *version;      /* 2+: the runtime's product version */
	char *rid;          /* 3: the runtime identifier, e.g. linux-x64 */
};

/* The socket of process PID (malloc'd path in *PATH), searched in the
 * process's own TMPDIR (or /tmp) through /proc/PID/root, then here.
 * -ESRCH: no such process; -ENOENT: no socket. */
int diag_socket_path(pid_t pid, char **path);

/* Is a library named NAME (e.g. "libclrtrace.so") mapped in process PID?
 * 1, 0, or -errno when its maps cannot be read. */
int diag_library_loaded(pid_t pid, const char *name);
/* The same, with the path of its first mapping as the process sees it
 * (malloc'd in *PATH when 1; PATH may be NULL). */
int diag_library_path(pid_t pid, const char *name, char **path);

/* Send one command on a new connection to PATH and read the reply, all
 * within TIMEOUT_MS.  0: the runtime answered OK and *REPLY (malloc'd,
 * *REPLY_LEN bytes) is its payload; 1: it answered with an error, *HRESULT. */
int diag_command(const char *path, uint8_t set, uint8_t id, const void *payload, size_t len, int timeout_ms,
		 uint8_t **reply, size_t *reply_len, int32_t *hresult);

/* ProcessInfo3, falling back to 2 and 1 when the runtime does not know it. */
int diag_process_info(const char *path, int timeout_ms, struct diag_process_info *info, int32_t *hresult);
void diag_process_info_done(struct diag_process_info *info);

/* AttachProfiler: load LIBRARY (a path inside the target) with CLSID and
 * CLIENT_DATA.  ATTACH_TIMEOUT_MS is the runtime's own wait; the reply
 * comes after the profiler's InitializeForAttach returned.  0 or 1 (*HRESULT). */
int diag_attach_profiler(const char *path, const uint8_t clsid[16], const char *library, const void *client_data,
			 size_t client_len, uint32_t attach_timeout_ms, int timeout_ms, int32_t *hresult);

/* "{XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX}" → the 16 bytes of a GUID in memory. */
int diag_parse_guid(const char *s, uint8_t guid[16]);

/* The name and meaning of an HRESULT the runtime answers; NULL if unknown. */
const char *diag_hresult_name(int32_t hr, const char **meaning);

/* Why a diag_* call failed (R a negative errno), as words for one line. */
const char *diag_strerror(int r);
