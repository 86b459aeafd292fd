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

#include "cli.h"
#include "config.h"
#include "pending.h"
#include "util.h"

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

/* Merge what a process that died without flushing left in
 * FILE.<pid>.pending, then count records and finished exceptions (unless
 * the summary is not wanted). */
static void count_file(const char *path, struct run_counts *c, bool quiet)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f;

	(void)pending_recover(path); /* errors: the trace stays as it is */
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
 * of the template written since START. */
static void summarise(const char *outputs, const char *name, pid_t pid, time_t start, int quiet)
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
	if (strstr(outputs, "journal"))
		fprintf(stderr, "clrtrace: trace sent to the journal%s\n", files ? "" : " (journalctl CLRTRACE_PID=...)");
	if (files == 0) {
		if (!strstr(outputs, "journal"))
			fprintf(stderr, "clrtrace: no trace file was written (was the program a .NET program?)\n");
		goto out;
	}
	fprintf(stderr, "clrtrace: %" PRIu64 " records, %" PRIu64 " exceptions (%" PRIu64 " unhandled), trace in %s%s\n",
		c.records, c.exceptions, c.unhandled, where, files > 1 ? " and more" : "");
out:
	free(where);
}

int cmd_run(int argc, char **argv)
{
	_cleanup_(trace_opts_done) struct trace_opts o = { 0 };
	_cleanup_(strv_freep) char **env = NULL;
	_cleanup_free_ char *name = NULL;
	int i, status, quiet = 0;
	pid_t pid;
	time_t start = time(NULL);
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_int, old_quit;

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
		o.processes = name ? config_glob_escape(name) : strdup("!dotnet,!MSBuild,!VBCSCompiler,!csc");
	if (!o.processes && name)
		o.processes = strdup("!dotnet,!MSBuild,!VBCSCompiler,!csc"); /* a ',' or ':' in the name */
	{
		char *abs = absolute_outputs(o.outputs ? o.outputs : CT_DEFAULT_OUTPUT);
		free(o.outputs);
		o.outputs = abs;
	}
	env = trace_opts_environment(&o);
	if (!env) {
		cli_error("out of memory");
		return 1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		cli_error("run: fork: %s", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		for (size_t k = 0; env[k]; k++)
			putenv(env[k]);
		execvp(argv[i], argv + i);
		cli_error("run: cannot run '%s': %s", argv[i], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	/* like system(3): the terminal's ^C is for the program */
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			cli_error("run: waitpid: %s", strerror(errno));
			return 1;
		}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	summarise(o.outputs, name, pid, start, quiet);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
