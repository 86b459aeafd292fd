/* SPDX-License-Identifier: MIT */
/* clrtrace ps: the .NET processes with a diagnostics socket, as the IPC describes them. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/diag-ipc.h"
#include "common/util.h"

#define PS_TIMEOUT_MS 2000

/* Close a FILE (cleanup attribute). */
static void fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}

/* Close a DIR (cleanup attribute). */
static void closedirp(DIR **d)
{
	if (*d)
		closedir(*d);
}

/* The process's name from /proc/PID/comm (malloc'd), or NULL. */
static char *proc_comm(pid_t pid)
{
	_cleanup_(fclosep) FILE *f = NULL;
	char path[64], buf[64];

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "re");
	if (!f || !fgets(buf, sizeof(buf), f))
		return NULL;
	buf[strcspn(buf, "\n")] = 0;
	return strdup(buf);
}

/* Print one process: its row, or why it cannot be queried. */
static void ps_one(pid_t pid, bool verbose)
{
	_cleanup_free_ char *sock = NULL, *comm = NULL;
	struct diag_process_info info = { 0 };
	const char *loaded = "?", *name, *hrname;
	char note[160] = "";
	int32_t hr = 0;
	int r;

	r = diag_socket_path(pid, &sock);
	if (r == -ENOENT || r == -ESRCH)
		return; /* no diagnostics here, or gone meanwhile */
	comm = proc_comm(pid);
	if (r >= 0) {
		r = diag_process_info(sock, PS_TIMEOUT_MS, &info, &hr);
		if (r == -ENOENT) /* the process ended between the two */
			return;
	}
	if (r < 0) {
		struct stat st;
		char path[32];

		snprintf(path, sizeof(path), "/proc/%d", (int)pid);
		if ((r == -EACCES || r == -EPERM) && stat(path, &st) == 0)
			snprintf(note, sizeof(note), "cannot query: permission denied (the process runs as uid %u)",
				 (unsigned)st.st_uid);
		else
			snprintf(note, sizeof(note), "cannot query: %s", diag_strerror(r));
	} else if (r == 1) {
		hrname = diag_hresult_name(hr, NULL);
		snprintf(note, sizeof(note), "cannot query: the runtime answered 0x%08X%s%s", (unsigned)hr,
			 hrname ? " " : "", hrname ? hrname : "");
	}
	switch (diag_library_loaded(pid, "libclrtrace.so")) {
	case 1:
		loaded = "yes";
		break;
	case 0:
		loaded = "no";
		break;
	}
	name = info.entrypoint && *info.entrypoint ? info.entrypoint : comm ? comm : "?";
	printf("%7d  %-10s %-8s %s", (int)pid, info.version ? info.version : "?", loaded, name);
	if (*note)
		printf("  (%s)", note);
	else if (verbose && info.command_line)
		printf("  %s", info.command_line);
	putchar('\n');
	diag_process_info_done(&info);
}

int cmd_ps(int argc, char **argv)
{
	_cleanup_(closedirp) DIR *d = NULL;
	bool verbose = false;
	struct dirent *e;
	pid_t self = getpid();

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			printf("Usage: clrtrace ps [-l]\n\n"
			       "List the .NET processes that have a diagnostics socket: pid, runtime version,\n"
			       "whether clrtrace is loaded, and the program; processes that cannot be\n"
			       "queried say why.\n\nOptions:\n"
			       "  -l, --long   add each process's command line\n");
			return 0;
		}
		if (strcmp(argv[i], "-l") == 0 || strcmp(argv[i], "--long") == 0) {
			verbose = true;
			continue;
		}
		cli_error("ps: unknown argument '%s' (try 'clrtrace ps --help')", argv[i]);
		return EXIT_USAGE;
	}
	d = opendir("/proc");
	if (!d) {
		cli_error("ps: cannot read /proc: %s", strerror(errno));
		return 1;
	}
	printf("%7s  %-10s %-8s %s\n", "PID", "RUNTIME", "CLRTRACE", "PROGRAM");
	while ((e = readdir(d))) {
		char *end;
		long pid;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		pid = strtol(e->d_name, &end, 10);
		if (*end || pid <= 0 || pid > INT32_MAX || pid == self)
			continue;
		ps_one((pid_t)pid, verbose);
	}
	return 0;
}
