/* SPDX-License-Identifier: MIT */
/* clrtrace run: trace one program, exit with its status, print a summary. */
#include <errno.h>
#include <glob.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/args.h"
#include "cli/cli.h"
#include "common/config.h"
#include "common/pending.h"
#include "cli/run-outputs.h"
#include "cli/run-status.h"
#include "common/util.h"

/* Make every file: sink absolute, so the summary can find it. */
static char *absolute_outputs(const char *outputs)
{
	char cwd[PATH_MAX], *res = NULL, *copy = strdup(outputs), *save = NULL;

	if (!copy || !getcwd(cwd, sizeof(cwd))) {
		free(copy);
		return strdup(outputs);
	}
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *item = NULL, *old = res;

		tok = strstrip(tok);
		if (startswith(tok, "file:") && tok[5] != '/')
			(void)asprintf(&item, "file:%s/%s", cwd, tok + 5);
		else
			item = strdup(tok);
		if (asprintf(&res, "%s%s%s", old ? old : "", old ? "," : "", item ? item : "") < 0)
			res = NULL;
		free(old);
		free(item);
	}
	free(copy);
	return res;
}

struct run_counts {
	uint64_t records;
	uint64_t exceptions;
	uint64_t unhandled;
};

/* A mirror the merge left alone: one line (the trace stays as it is). */
static void on_skip(void *ud, const char *pending, const char *why, int error)
{
	cli_error("%s: %s", pending, why);
}

/* Merge what a process that died without flushing left in
 * FILE.<pid>.pending, then count records and finished exceptions (unless
 * the summary is not wanted). */
static void count_file(const char *path, struct run_counts *c, bool quiet)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f;

	(void)pending_recover(path, on_skip, NULL);
	f = quiet ? NULL : fopen(path, "re");
	if (!f)
		return;
	while ((n = getline(&line, &cap, f)) > 0) {
		if (line[n - 1] != '\n')
			break; /* a torn last line is not a record */
		c->records++;
		if (strstr(line, "\"event\":\"exception.summary\"")) {
			c->exceptions++;
			if (strstr(line, "\"outcome\":\"unhandled\""))
				c->unhandled++;
		}
	}
	free(line);
	fclose(f);
}

/* A glob for the files of a template: %p and %t become *. */
static char *template_glob(const char *tmpl, const char *name)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	if (!f)
		return NULL;
	for (const char *p = tmpl; *p; p++) {
		if (*p != '%' || !p[1]) {
			fputc(*p, f);
			continue;
		}
		p++;
		if (*p == 'n')
			fputs(name ? name : "*", f);
		else if (*p == '%')
			fputc('%', f);
		else
			fputc('*', f);
	}
	fclose(f);
	return buf;
}

/* Merge and summarise the trace files this run produced: the child's pid first, else any file
 * of the template written since START; with the losses the processes reported on STATUS_FD. */
static void summarise(const char *outputs, const char *name, pid_t pid, time_t start, int quiet, int status_fd,
		      bool journal_down)
{
	char *where = NULL;
	struct run_counts c = { 0 };
	int files = 0;

	/* pass 1: when no trace file it was given could be opened, the
	 * profiler wrote the default one in the working directory instead */
	for (int pass = 0; pass < 2 && files == 0; pass++) {
		_cleanup_free_ char *copy = pass ? absolute_outputs(CT_DEFAULT_OUTPUT) : strdup(outputs);
		char *save = NULL;

		if (!copy || (pass && !strstr(outputs, "file:")))
			break;
		for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			tok = strstrip(tok);
			if (!startswith(tok, "file:"))
				continue;
			_cleanup_free_ char *path = config_expand_path(tok + 5, pid, name ? name : "*", 0);
			struct stat st;

			if (path && !strstr(tok + 5, "%t") && stat(path, &st) == 0) {
				count_file(path, &c, quiet);
				files++;
				if (!where)
					where = strdup(path);
				continue;
			}
			/* a wrapper script: the traced process had another pid */
			_cleanup_free_ char *pat = template_glob(tok + 5, name);
			glob_t g;

			if (!pat || glob(pat, 0, NULL, &g) != 0)
				continue;
			for (size_t k = 0; k < g.gl_pathc; k++)
				if (stat(g.gl_pathv[k], &st) == 0 && st.st_mtime >= start) {
					count_file(g.gl_pathv[k], &c, quiet);
					files++;
					if (!where)
						where = strdup(g.gl_pathv[k]);
				}
			globfree(&g);
		}
	}
	if (quiet)
		goto out;
	/* the loss, as the profilers counted it: a full disk keeps it out of the trace itself */
	struct run_status st;
	char loss[800];

	run_status_collect(status_fd, &st);
	run_status_text(&st, loss, sizeof(loss));
	if (strstr(outputs, "journal") && files)
		fprintf(stderr, "clrtrace: trace sent to the journal\n");
	else if (strstr(outputs, "journal"))
		fprintf(stderr, "clrtrace: trace sent to the journal (journalctl CLRTRACE_PID=%d)%s%s\n", (int)pid,
			journal_down ? ", which was not reachable when the program started" : "", loss);
	if (files == 0) {
		if (!strstr(outputs, "journal"))
			fprintf(stderr, st.reports ? "clrtrace: no trace file is left%s\n"
						   : "clrtrace: no trace file was written (was the program a .NET program?)%s\n",
				loss);
		goto out;
	}
	fprintf(stderr, "clrtrace: %" PRIu64 " records, %" PRIu64 " exceptions (%" PRIu64 " unhandled), trace in %s%s%s\n",
		c.records, c.exceptions, c.unhandled, where, files > 1 ? " and more" : "", loss);
out:
	free(where);
}

/* The signals passed on to the program: what service managers, timeout(1),
 * terminals and users send to stop, reload or resize it. */
static const int forwarded[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH, SIGALRM };
static volatile sig_atomic_t child_pid;

/* Pass a signal on to the program.  Not those the terminal generated
 * (si_code > 0): the terminal sent them to the program too, as it is in
 * the same foreground process group. */
static void forward_signal(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	pid_t p = child_pid;

	(void)uc;
	if (p > 0 && si->si_code <= 0 && si->si_pid != p)
		kill(p, sig);
	errno = saved;
}

/* Does signal SIG's default action dump core? */
static bool dumps_core(int sig)
{
	static const int core[] = { SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV, SIGXCPU, SIGXFSZ, SIGSYS };

	for (size_t k = 0; k < ELEMENTSOF(core); k++)
		if (core[k] == sig)
			return true;
	return false;
}

/* Wait until the program PID has ended, without reaping it (while it is a
 * zombie its pid cannot go to another process, so forwarding stays safe).
 * As PID 1 (a container's entrypoint), reap the orphans that come to us. */
static int wait_program(pid_t pid)
{
	for (;;) {
		siginfo_t si = { 0 };

		if (waitid(getpid() == 1 ? P_ALL : P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (si.si_pid == pid)
			return 0;
		if (si.si_pid > 0)
			(void)waitpid(si.si_pid, NULL, WNOHANG);
	}
}

int cmd_run(int argc, char **argv)
{
	_cleanup_(trace_opts_done) struct trace_opts o = { 0 };
	_cleanup_(strv_freep) char **env = NULL;
	_cleanup_free_ char *name = NULL;
	int i, wr, status, quiet = 0;
	bool journal_down;
	pid_t pid;
	time_t start = time(NULL);
	struct sigaction fwd = { .sa_sigaction = forward_signal, .sa_flags = SA_SIGINFO | SA_RESTART };
	struct sigaction ign = { .sa_handler = SIG_IGN }, old[ELEMENTSOF(forwarded)];
	sigset_t block, old_mask;

	for (i = 1; i < argc; i++) {
		int r;

		if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		}
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			printf("Usage: clrtrace run [OPTIONS] -- PROGRAM [ARGS...]\n\n"
			       "Run PROGRAM under the tracer and exit with its status.\n\nOptions:\n%s"
			       "  -q, --quiet             no summary line at the end\n",
			       trace_opts_help);
			return 0;
		}
		if (strcmp(argv[i], "-q") == 0 || strcmp(argv[i], "--quiet") == 0) {
			quiet = 1;
			continue;
		}
		r = trace_opts_parse(&o, argc, argv, &i);
		if (r < 0)
			return EXIT_USAGE;
		if (r == 0) {
			if (argv[i][0] == '-') {
				cli_error("run: unknown option '%s' (try 'clrtrace run --help')", argv[i]);
				return EXIT_USAGE;
			}
			break; /* the program, without -- */
		}
	}
	if (i >= argc) {
		cli_error("run: no program given (clrtrace run [OPTIONS] -- PROGRAM [ARGS...])");
		return EXIT_USAGE;
	}
	if (trace_opts_finish(&o) < 0)
		return EXIT_USAGE;
	name = config_program_name(argv + i);
	if (!o.processes) /* the program's name as a glob that matches only it */
		o.processes = name ? config_glob_escape(name) : strdup(CLI_SDK_EXCLUDED);
	if (!o.processes && name)
		o.processes = strdup(CLI_SDK_EXCLUDED); /* a ',' or ':' in the name */
	{
		char *abs = absolute_outputs(o.outputs ? o.outputs : CT_DEFAULT_OUTPUT);
		free(o.outputs);
		o.outputs = abs;
	}
	if (!o.outputs || run_check_outputs(o.outputs, name) < 0)
		return EXIT_USAGE;
	journal_down = strstr(o.outputs, "journal") && run_check_journal() < 0;
	env = trace_opts_environment(&o);
	if (!env) {
		cli_error("out of memory");
		return 1;
	}
	char *status_env = NULL;
	int status_fd = run_status_listen(&status_env); /* no summary of losses without it */

	fflush(NULL);
	/* handlers in place before the program exists; a signal that comes
	 * meanwhile waits until child_pid is known */
	sigemptyset(&block);
	for (size_t k = 0; k < ELEMENTSOF(forwarded); k++)
		sigaddset(&block, forwarded[k]);
	sigprocmask(SIG_BLOCK, &block, &old_mask);
	sigfillset(&fwd.sa_mask);
	for (size_t k = 0; k < ELEMENTSOF(forwarded); k++) {
		sigaction(forwarded[k], NULL, &old[k]);
		if (old[k].sa_handler != SIG_IGN) /* ignored when we started: stays so */
			sigaction(forwarded[k], &fwd, NULL);
	}
	pid = fork();
	if (pid < 0) {
		cli_error("run: fork: %s", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		for (size_t k = 0; k < ELEMENTSOF(forwarded); k++)
			sigaction(forwarded[k], &old[k], NULL);
		sigprocmask(SIG_SETMASK, &old_mask, NULL);
		for (size_t k = 0; env[k]; k++)
			putenv(env[k]);
		if (status_env)
			putenv(status_env);
		execvp(argv[i], argv + i);
		cli_error("run: cannot run '%s': %s", argv[i], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	child_pid = pid;
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	wr = wait_program(pid);
	/* the program is gone: what comes now must not cut the merge short */
	for (size_t k = 0; k < ELEMENTSOF(forwarded); k++)
		if (old[k].sa_handler != SIG_IGN)
			sigaction(forwarded[k], &ign, NULL);
	child_pid = 0;
	if (wr < 0 || waitpid(pid, &status, 0) < 0) {
		cli_error("run: waiting for the program: %s", strerror(wr < 0 ? -wr : errno));
		return 1;
	}
	summarise(o.outputs, name, pid, start, quiet, status_fd, journal_down);
	if (status_fd >= 0)
		close(status_fd);
	free(status_env);
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);

		/* die as the program did, so a shell or service manager sees the
		 * same death; not of a signal that would dump clrtrace's core */
		if (!dumps_core(sig)) {
			fflush(NULL);
			sigaction(sig, &(struct sigaction){ .sa_handler = SIG_DFL }, NULL);
			sigprocmask(SIG_SETMASK, &old_mask, NULL);
			raise(sig);
		}
		return 128 + sig; /* PID 1 does not die of its own signals */
	}
	return WEXITSTATUS(status);
}
