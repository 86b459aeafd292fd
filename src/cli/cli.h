/* SPDX-License-Identifier: MIT */
/* The clrtrace command: one file per subcommand, one table (clrtrace.c). */
#pragma once

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

struct cli_command {
	const char *name;
	const char *usage;   /* one line, after "clrtrace NAME " */
	const char *summary; /* one line for --help */
	int (*exec)(int argc, char **argv);
};

/* Each returns the process exit status. */
int cmd_run(int argc, char **argv);
int cmd_env(int argc, char **argv);
int cmd_view(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_startup(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_recover(int argc, char **argv);
int cmd_ps(int argc, char **argv);
int cmd_attach(int argc, char **argv);
int cmd_detach(int argc, char **argv);
/* A pid: decimal, > 0; 0 or -EINVAL. */
int cli_parse_pid(const char *s, pid_t *pid);
/* Detach the clrtrace `attach` loaded into PID (its diagnostics socket
 * SOCK), waiting up to TIMEOUT_MS for the runtime to unload it; says what
 * happened; 0 or 1 (the exit status). */
int cli_detach(pid_t pid, const char *sock, int timeout_ms);

/* clrtrace --list=WHAT: events, categories or outcomes, one a line. */
int cli_list_words(const char *what);

/* "clrtrace: " + message + newline on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Tracing settings shared by run and env. */
struct trace_opts {
	char *outputs;    /* comma list for CLRTRACE_OUTPUT, or NULL */
	char *events;
	char *exceptions;
	char *processes;
	char *ident;
	char *ratelimit;
	char *budget;
	bool no_messages;
	bool journal;
	bool beside;   /* --beside-profiler: a notification profiler */
	char *library; /* absolute path of libclrtrace.so (malloc'd) */
};

/* Parse one tracing option at argv[*i] (advancing *i past its value).
 * Returns 1 if it was one, 0 if not, -1 after printing an error. */
int trace_opts_parse(struct trace_opts *o, int argc, char **argv, int *i);
/* Validate values and find the library; -1 after printing an error. */
int trace_opts_finish(struct trace_opts *o);
/* The variables to set, as NAME=VALUE strings (NULL-terminated, malloc'd). */
char **trace_opts_environment(const struct trace_opts *o);
void trace_opts_done(struct trace_opts *o);
extern const char trace_opts_help[];

#define EXIT_USAGE 2
