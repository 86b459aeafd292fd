/* SPDX-License-Identifier: MIT */
/* clrtrace attach: load the profiler into a running .NET process through the diagnostics IPC. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/diag-ipc.h"
#include "common/config.h"
#include "common/loadmode.h"
#include "common/strbuf.h"
#include "common/vocabulary.h"
#include "common/util.h"

#define ATTACH_GC_WAIT_MS 10000 /* the runtime's wait for a concurrent GC */
#define ATTACH_TIMEOUT_S 30     /* our wait for its answer */

/* Refuse the categories the runtime allows only at startup, in one line. */
static int check_categories(const char *events)
{
	const char *why = NULL;
	unsigned cats, refused;

	if (!events) /* the default categories: all allowed after attach */
		events = "";
	if (config_parse_events(events, &cats, &why) < 0)
		return 0; /* trace_opts_finish said it already */
	refused = ct_load_refused(LOAD_ATTACH, cats);
	for (int i = 0; i < _CAT_MAX; i++)
		if (refused & (1u << i)) {
			cli_error("attach: --events: %s can be traced only from the start ('clrtrace run'), "
				  "not after attach", ct_categories[i].name);
			return -1;
		}
	return 0;
}

/* The client data: the CLRTRACE_* variables `run` would set, as
 * NAME=VALUE\0 one after the other. */
static int client_data(char **env, struct strbuf *b)
{
	for (size_t i = 0; env[i]; i++)
		if (startswith(env[i], "CLRTRACE_"))
			strbuf_add(b, env[i], strlen(env[i]) + 1);
	return b->oom ? -ENOMEM : 0;
}

/* Parse a pid: decimal, > 0. */
int cli_parse_pid(const char *s, pid_t *pid)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v <= 0 || v > INT_MAX)
		return -EINVAL;
	*pid = (pid_t)v;
	return 0;
}

/* Can process PID see LIBRARY at the same path (its mount namespace)?
 * -ENOENT when it certainly cannot; 0 when it can or we cannot tell. */
static int library_visible(pid_t pid, const char *library)
{
	_cleanup_free_ char *p = NULL;
	struct stat st;

	if (asprintf(&p, "/proc/%d/root%s", (int)pid, library) < 0)
		return -ENOMEM;
	if (stat(p, &st) < 0 && errno == ENOENT)
		return -ENOENT;
	return 0;
}

/* Say what the runtime's refusal means, in one line. */
static void say_refusal(pid_t pid, int32_t hr)
{
	const char *meaning, *name = diag_hresult_name(hr, &meaning);
	const char *hint = "";

	if ((uint32_t)hr == 0x8013136A && diag_library_loaded(pid, "libclrtrace.so") == 1)
		hint = " (clrtrace itself: it already traces this process)";
	else if ((uint32_t)hr == 0x8013136A)
		hint = " (an APM agent or another profiler)";
	else if ((uint32_t)hr == 0x80004005) /* on_Initialize's failure: it said why there */
		hint = " (the tracer could not start there, for example an output it cannot write; "
		       "the process's stderr says why)";
	if (name)
		cli_error("attach: pid %d: the runtime refused: 0x%08X %s: %s%s", (int)pid, (unsigned)hr, name,
			  meaning, hint);
	else
		cli_error("attach: pid %d: the runtime refused with HRESULT 0x%08X", (int)pid, (unsigned)hr);
}

static volatile sig_atomic_t stop;

/* SIGINT, SIGTERM during --duration: detach now. */
static void on_stop(int sig)
{
	stop = 1;
}

/* What the command line asks for. */
struct attach_args {
	struct trace_opts o;
	pid_t pid;
	unsigned long timeout_s, duration_s;
};

/* --NAME SECONDS or --NAME=SECONDS at argv[*i] into *OUT (1..MAX): 1 if it
 * was that option, 0 if not, -1 after saying what is wrong. */
static int seconds_option(int argc, char **argv, int *i, const char *name, unsigned long max, unsigned long *out)
{
	size_t n = strlen(name);
	const char *v;
	char *end;

	if (strncmp(argv[*i], name, n) != 0 || (argv[*i][n] && argv[*i][n] != '='))
		return 0;
	v = argv[*i][n] == '=' ? argv[*i] + n + 1 : *i + 1 < argc ? argv[++*i] : NULL;
	errno = 0;
	*out = v ? strtoul(v, &end, 10) : 0;
	if (!v || errno || end == v || *end || *out == 0 || *out > max) {
		cli_error("attach: %s needs a number of seconds from 1 to %lu", name, max);
		return -1;
	}
	return 1;
}

/* Parse the command line into A; 1 to go on, 0 after --help, -1 after an error. */
static int parse_attach_args(int argc, char **argv, struct attach_args *a)
{
	const char *pid_arg = NULL;
	int r;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			printf("Usage: clrtrace attach [OPTIONS] PID\n\n"
			       "Load the tracer into the running .NET process PID (through its diagnostics\n"
			       "socket), with the same tracing options as 'clrtrace run'.\n\nOptions:\n%s"
			       "      --timeout SECONDS   wait this long for the runtime's answer (default %d)\n"
			       "      --duration SECONDS  trace this long, then detach (as 'clrtrace detach PID')\n",
			       trace_opts_help, ATTACH_TIMEOUT_S);
			return 0;
		}
		if ((r = seconds_option(argc, argv, &i, "--timeout", 3600, &a->timeout_s)) ||
		    (r = seconds_option(argc, argv, &i, "--duration", 31 * 86400, &a->duration_s))) {
			if (r < 0)
				return -1;
			continue;
		}
		if (argv[i][0] != '-' && !pid_arg) {
			pid_arg = argv[i];
			continue;
		}
		r = trace_opts_parse(&a->o, argc, argv, &i);
		if (r < 0)
			return -1;
		if (r == 0) {
			cli_error("attach: unexpected argument '%s' (try 'clrtrace attach --help')", argv[i]);
			return -1;
		}
	}
	if (!pid_arg) {
		cli_error("attach: which process? (clrtrace attach [OPTIONS] PID; 'clrtrace ps' lists them)");
		return -1;
	}
	if (cli_parse_pid(pid_arg, &a->pid) < 0) {
		cli_error("attach: '%s' is not a process id", pid_arg);
		return -1;
	}
	if (trace_opts_finish(&a->o) < 0 || check_categories(a->o.events) < 0)
		return -1;
	return 1;
}

/* Ask the runtime behind SOCK to load LIBRARY with DATA, beside another
 * main profiler if there is one (*BESIDE then set); 0 loaded, 1 refused
 * (said), -1 on an error (said). */
static int load_profiler(const struct attach_args *a, const char *sock, const char *library,
			 const struct strbuf *data, bool *beside)
{
	uint8_t clsid[16];
	int32_t hr = 0;
	bool mapped;
	int r;

	if (diag_parse_guid(a->o.beside ? CT_CLSID_NOTIFICATION_STRING : CT_CLSID_STRING, clsid) < 0) {
		cli_error("attach: internal error: no profiler CLSID");
		return -1;
	}
	/* before the attach: a refused one leaves the library mapped */
	mapped = diag_library_loaded(a->pid, "libclrtrace.so") == 1;
	r = diag_attach_profiler(sock, clsid, library, data->s, data->len, ATTACH_GC_WAIT_MS,
				 (int)a->timeout_s * 1000, &hr);
	/* another main profiler (an APM agent): beside it, as a notification
	 * profiler (clrtrace itself refuses a second copy either way) */
	if (r == 1 && (uint32_t)hr == 0x8013136A && !a->o.beside && !mapped &&
	    diag_parse_guid(CT_CLSID_NOTIFICATION_STRING, clsid) == 0) {
		*beside = true;
		r = diag_attach_profiler(sock, clsid, library, data->s, data->len, ATTACH_GC_WAIT_MS,
					 (int)a->timeout_s * 1000, &hr);
	}
	if (r < 0) {
		cli_error("attach: pid %d: %s", (int)a->pid, diag_strerror(r));
		return -1;
	}
	if (r == 1)
		say_refusal(a->pid, hr);
	return r;
}

/* --duration: wait (a signal ends the wait early), then detach. */
static int detach_after(const struct attach_args *a, const char *sock)
{
	struct sigaction sa = { .sa_handler = on_stop };

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	fflush(stdout);
	for (struct timespec ts = { (time_t)a->duration_s, 0 }; nanosleep(&ts, &ts) < 0 && errno == EINTR && !stop;)
		;
	return cli_detach(a->pid, sock, (int)a->timeout_s * 1000);
}

/* Where the process's diagnostics socket is, and that it answers: *INFO. */
static int reach_process(const struct attach_args *a, char **sock, struct diag_process_info *info)
{
	int32_t hr = 0;
	int r;

	r = diag_socket_path(a->pid, sock);
	if (r < 0) {
		cli_error("attach: pid %d: %s", (int)a->pid, diag_strerror(r));
		return -1;
	}
	if (library_visible(a->pid, a->o.library) == -ENOENT) {
		cli_error("attach: pid %d: %s does not exist inside the process's mount namespace "
			  "(a container?); put the library there and name it with --library",
			  (int)a->pid, a->o.library);
		return -1;
	}
	/* who answers: the runtime's version, and a first proof the socket lives */
	r = diag_process_info(*sock, (int)a->timeout_s * 1000, info, &hr);
	if (r < 0) {
		cli_error("attach: pid %d: %s", (int)a->pid, diag_strerror(r));
		return -1;
	}
	return 0;
}

int cmd_attach(int argc, char **argv)
{
	_cleanup_(strv_freep) char **env = NULL;
	_cleanup_free_ char *sock = NULL;
	struct attach_args a = { .timeout_s = ATTACH_TIMEOUT_S };
	struct diag_process_info info = { 0 };
	struct strbuf data = { 0 };
	bool beside = false;
	int r, status = 1;

	r = parse_attach_args(argc, argv, &a);
	if (r <= 0) {
		status = r < 0 ? EXIT_USAGE : 0;
		goto out;
	}
	env = trace_opts_environment(&a.o);
	if (!env || client_data(env, &data) < 0) {
		cli_error("out of memory");
		goto out;
	}
	if (!a.o.library) {
		cli_error("attach: internal error: no profiler library");
		goto out;
	}
	if (reach_process(&a, &sock, &info) < 0 || load_profiler(&a, sock, a.o.library, &data, &beside) != 0)
		goto out;
	printf("clrtrace: attached to pid %d (%s, .NET %s)%s\n", (int)a.pid,
	       info.entrypoint && *info.entrypoint ? info.entrypoint : "?", info.version ? info.version : "?",
	       beside || a.o.beside ? " as a notification profiler, beside its main profiler" : "");
	status = a.duration_s ? detach_after(&a, sock) : 0;
out:
	diag_process_info_done(&info);
	strbuf_free(&data);
	trace_opts_done(&a.o);
	return status;
}
