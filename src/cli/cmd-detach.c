/* SPDX-License-Identifier: MIT */
/* clrtrace detach: stop the tracer `clrtrace attach` loaded into a process and have the runtime unload it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/diag-ipc.h"
#include "common/loadmode.h"
#include "common/util.h"

#define DETACH_TIMEOUT_S 30 /* the runtime unloads within a few seconds */
#define HR_DETACHING 0x80131367u       /* CORPROF_E_PROFILER_DETACHING: under way */
#define HR_NOT_INITIALIZED 0x80131373u /* CORPROF_E_PROFILER_NOT_YET_INITIALIZED: not attached */
#define POLL_MS 100

/* Ask the copy of clrtrace mapped from LIBRARY in the process to detach (the
 * detach CLSID, answered by its DllGetClassObject).  0 and *HR its answer, or -errno. */
static int ask(const char *sock, const char *library, int timeout_ms, int32_t *hr)
{
	uint8_t clsid[16];
	int r;

	if (diag_parse_guid(CT_CLSID_DETACH_STRING, clsid) < 0)
		return -EINVAL;
	r = diag_attach_profiler(sock, clsid, library, NULL, 0, 0, timeout_ms, hr);
	if (r == 0) /* never a class: a success is not an answer of ours */
		*hr = 0;
	return r < 0 ? r : 0;
}

/* Milliseconds on the monotonic clock. */
static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

int cli_detach(pid_t pid, const char *sock, int timeout_ms)
{
	_cleanup_free_ char *library = NULL;
	const char *name, *meaning;
	long long deadline = now_ms() + timeout_ms;
	int32_t hr = 0;
	int r;

	r = diag_library_path(pid, "libclrtrace.so", &library);
	if (r == 0) {
		cli_error("detach: pid %d: clrtrace is not loaded in it", (int)pid);
		return 1;
	}
	if (r < 0) {
		cli_error("detach: pid %d: cannot read its maps: %s", (int)pid, strerror(-r));
		return 1;
	}
	r = ask(sock, library, timeout_ms, &hr);
	if (r < 0) {
		cli_error("detach: pid %d: %s", (int)pid, diag_strerror(r));
		return 1;
	}
	if ((uint32_t)hr == HR_NOT_INITIALIZED) {
		cli_error("detach: pid %d: clrtrace there was not loaded by 'clrtrace attach' or no longer traces; "
			  "only an attached tracer detaches", (int)pid);
		return 1;
	}
	if ((uint32_t)hr != HR_DETACHING) {
		name = diag_hresult_name(hr, &meaning);
		if (name)
			cli_error("detach: pid %d: the runtime refused: 0x%08X %s: %s", (int)pid, (unsigned)hr, name,
				  meaning);
		else
			cli_error("detach: pid %d: the runtime refused with HRESULT 0x%08X", (int)pid, (unsigned)hr);
		return 1;
	}
	/* the trace is closed; wait for the runtime to let go of the library,
	 * so that an attach right after works: the copy answers "not
	 * attached" once the runtime told it the detach succeeded */
	while (now_ms() < deadline) {
		struct timespec ts = { 0, POLL_MS * 1000000L };

		nanosleep(&ts, NULL);
		r = ask(sock, library, timeout_ms, &hr);
		if (r < 0 || (uint32_t)hr != HR_DETACHING)
			break;
	}
	if (r < 0 && r != -ECONNREFUSED && r != -ENOENT) {
		cli_error("detach: pid %d: %s", (int)pid, diag_strerror(r));
		return 1;
	}
	if (r == 0 && (uint32_t)hr == HR_DETACHING) {
		cli_error("detach: pid %d: the trace is closed, but the runtime has not unloaded the tracer after %d s",
			  (int)pid, timeout_ms / 1000);
		return 1;
	}
	printf("clrtrace: detached from pid %d\n", (int)pid);
	return 0;
}

int cmd_detach(int argc, char **argv)
{
	_cleanup_free_ char *sock = NULL;
	const char *pid_arg = NULL;
	pid_t pid;
	int r;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			printf("Usage: clrtrace detach PID\n\n"
			       "Stop the tracer 'clrtrace attach' loaded into the .NET process PID: it writes\n"
			       "runtime.detach, closes its outputs, and the runtime unloads it; the program\n"
			       "runs on.\n");
			return 0;
		}
		if (argv[i][0] == '-' || pid_arg) {
			cli_error("detach: unexpected argument '%s' (try 'clrtrace detach --help')", argv[i]);
			return EXIT_USAGE;
		}
		pid_arg = argv[i];
	}
	if (!pid_arg) {
		cli_error("detach: which process? (clrtrace detach PID)");
		return EXIT_USAGE;
	}
	if (cli_parse_pid(pid_arg, &pid) < 0) {
		cli_error("detach: '%s' is not a process id", pid_arg);
		return EXIT_USAGE;
	}
	r = diag_socket_path(pid, &sock);
	if (r < 0) {
		cli_error("detach: pid %d: %s", (int)pid, diag_strerror(r));
		return 1;
	}
	return cli_detach(pid, sock, DETACH_TIMEOUT_S * 1000);
}
