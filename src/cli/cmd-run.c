/* SPDX-License-Identifier: MIT */
/* clrtrace run: trace one program, exit with its status, print a summary. */
#include <errno.h>
#include <glob.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/args.h"
#include "cli/cli.h"
#include "cli/run-ready.h"
#include "common/config.h"
#include "common/pending.h"
#include "common/record-head.h"
#include "cli/reader.h"
#include "cli/run-nativeaot.h"
#include "cli/run-outputs.h"
#include "cli/run-status.h"
#include "cli/reader.h"
#include "common/util.h"

/* Is the journal one of OUTPUTS (a comma list: "journal", "journal:…")?
 * Not a file whose path holds the word. */
static bool has_journal(const char *outputs)
{
	for (const char *p = outputs; p && *p;) {
		size_t n = strcspn(p, ",");

		while (n && *p == ' ')
			p++, n--;
		if ((n == 7 || (n > 7 && p[7] == ':')) && strncmp(p, "journal", 7) == 0)
			return true;
		p += n + (p[n] == ',');
	}
	return false;
}

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
	/* with exception.error records (issue 28): throws, errors, and the
	 * errors the process died of */
	uint64_t throws, errors, errors_unhandled;
	/* errors the budget or a Type:N limit left out (trace.left_out) */
	uint64_t left_out;
};

/* A mirror the merge left alone: one line (the trace stays as it is); a
 * merged one goes unsaid (the summary counts its records). */
static void on_skip(void *ud, const char *pending, const char *why, int error)
{
	if (error >= 0)
		cli_error("%s: %s", pending, why);
}

/* Whose mirrors this run merges: those of the processes it started. */
struct run_merge {
	const char *run_id; /* CLRTRACE_STATUS's name, in each traced process's mirror */
	pid_t child;        /* the program, and its start time (0: unknown) */
	uint64_t child_ticks;
};

/* Is the mirror H one of this run's processes' (pending_recover checked its
 * owner)?  Its header names the run, or it is the program's own (same pid
 * and start time, this boot and PID namespace: no status socket). */
static bool run_ours(void *ud, const struct pending_header *h)
{
	const struct run_merge *m = ud;

	if (m->run_id && h->run_id[0] && strcmp(h->run_id, m->run_id) == 0)
		return true;
	return m->child_ticks && h->pid == m->child && h->start_ticks == m->child_ticks && pending_same_host(h);
}

/* Count the record LINE[0..len) in C: its event from its head, the
 * outcome of a summary and the fate of an error from the parsed record. */
static void count_record(struct run_counts *c, const char *line, size_t len)
{
	enum ct_event ev = ct_record_event(line, len);
	struct rec r = { 0 };
	char *err = NULL;

	if (ev == EV_EXCEPTION_THROW)
		c->throws++;
	if (ev != EV_EXCEPTION_SUMMARY && ev != EV_EXCEPTION_ERROR && ev != EV_TRACE_LEFT_OUT)
		return;
	if (rec_parse(&r, line, len, 0, &err) < 0) {
		free(err);
		return;
	}
	if (ev == EV_EXCEPTION_SUMMARY) {
		c->exceptions++;
		c->unhandled += ct_outcome_from_string(jstr(r.j, "outcome")) == OUTCOME_UNHANDLED;
	} else if (ev == EV_EXCEPTION_ERROR) {
		c->errors++;
		c->errors_unhandled += ct_fate_from_string(jstr(r.j, "fate")) == FATE_UNHANDLED;
	} else { /* trace.left_out: errors the budget or -x left out */
		uint64_t k = r.j && json_integer_value(json_object_get(r.j, "count")) > 0
				     ? (uint64_t)json_integer_value(json_object_get(r.j, "count"))
				     : 0;

		c->left_out = k <= UINT64_MAX - c->left_out ? c->left_out + k : UINT64_MAX;
	}
	free(err);
	rec_done(&r);
}

/* Merge what one of this run's processes (M) left in FILE.<pid>.pending when
 * it died without flushing, then count records and finished exceptions
 * (unless the summary is not wanted) in FILE and, when it rotated, the
 * files rotated out before it (the reader reads the set by its name). */
static void count_file(const char *path, struct run_counts *c, const struct run_merge *m, bool quiet)
{
	char *const ops[] = { (char *)path };
	struct rd *r = NULL;
	const char *line;
	size_t len;
	bool partial;

	(void)pending_recover(path, run_ours, on_skip, (void *)m);
	if (quiet || rd_open(&r, "run", ops, 1, false) < 0)
		return;
	while (rd_line(r, &line, &len, &partial) > 0) {
		if (partial)
			break; /* a torn last line is not a record */
		c->records++;
		count_record(c, line, len);
	}
	rd_free(r);
}

/* A glob for the files of a template written by process PID (any process if PID <= 0):
 * %p becomes PID, %n, %t and the rest become *. */
static char *template_glob(const char *tmpl, pid_t pid)
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
		if (*p == 'p' && pid > 0)
			fprintf(f, "%d", (int)pid);
		else if (*p == '%')
			fputc('%', f);
		else
			fputc('*', f);
	}
	fclose(f);
	return buf;
}

/* What the summary counts: records and exceptions over the trace files found. */
struct run_found {
	struct run_counts c;
	const struct run_merge *merge;
	char **paths; /* every trace file found, in the order found */
	struct { dev_t dev; ino_t ino; } *ids; /* and the file each is */
	int files;
	char *device; /* a target that is no regular file (/dev/null, a FIFO): nothing to read back */
};

/* Merge and count one trace file this run wrote, ST (once, however often
 * and under whichever name it is found). */
static void found_file(struct run_found *rf, const char *path, const struct stat *st, bool quiet)
{
	char **more;
	void *ids;

	for (int k = 0; k < rf->files; k++)
		if (strcmp(rf->paths[k], path) == 0 || (rf->ids[k].dev == st->st_dev && rf->ids[k].ino == st->st_ino))
			return;
	ids = reallocarray(rf->ids, (size_t)rf->files + 1, sizeof(*rf->ids));
	if (ids)
		rf->ids = ids;
	more = reallocarray(rf->paths, (size_t)rf->files + 2, sizeof(*more));
	if (!ids || !more || !(more[rf->files] = strdup(path))) {
		rf->paths = more ? more : rf->paths;
		return;
	}
	more[rf->files + 1] = NULL;
	rf->paths = more;
	rf->ids[rf->files].dev = st->st_dev;
	rf->ids[rf->files].ino = st->st_ino;
	rf->files++;
	count_file(path, &rf->c, rf->merge, quiet);
}

/* The processes whose trace files are this run's: the program and every traced process that
 * reported at exit (a wrapper script's .NET programs have pids of their own). */
struct run_pids {
	const pid_t *pids;
	int n;
	bool any; /* no reports could come (no status socket): any file written since the start */
};

/* Did a process that is gone now leave PATH.<pid>[.<n>].pending since START (it died before it
 * could report: FailFast, kill -9)? */
static bool left_pending(const char *path, time_t start)
{
	_cleanup_free_ char *pat = NULL;
	bool found = false;
	glob_t g;

	if (asprintf(&pat, "%s.*.pending", path) < 0 || glob(pat, 0, NULL, &g) != 0)
		return false;
	for (size_t j = 0; j < g.gl_pathc && !found; j++) {
		const char *rest = g.gl_pathv[j] + strlen(path) + 1;
		char *end;
		long pid = strtol(rest, &end, 10);
		struct stat st;

		found = end != rest && (*end == '.') && pid > 0 && pid <= INT32_MAX && kill((pid_t)pid, 0) < 0 &&
			errno == ESRCH && stat(g.gl_pathv[j], &st) == 0 && st.st_mtime >= start && st.st_uid == geteuid();
	}
	globfree(&g);
	return found;
}

/* Find the files of one file: sink TMPL written since START by one of the processes P, or left
 * with a .pending file by one that died before it could report. */
static void find_sink_files(struct run_found *rf, const char *tmpl, const struct run_pids *p, time_t start,
			    bool quiet)
{
	bool by_pid = strstr(tmpl, "%p") && !p->any;

	for (int k = 0; k < (by_pid ? p->n : 1); k++) {
		_cleanup_free_ char *pat = template_glob(tmpl, by_pid ? p->pids[k] : 0);
		struct stat st;
		glob_t g;

		if (!pat || glob(pat, 0, NULL, &g) != 0) {
			/* no PATH: a rotation renamed it and its writer was
			 * killed before it made the next one; its mirror still
			 * holds records, which the merge puts into a new PATH */
			if (pat && !by_pid && left_pending(pat, start) &&
			    pending_recover(pat, run_ours, on_skip, (void *)rf->merge) > 0 && stat(pat, &st) == 0)
				found_file(rf, pat, &st, quiet);
			continue;
		}
		for (size_t j = 0; j < g.gl_pathc; j++) {
			if (stat(g.gl_pathv[j], &st) < 0)
				continue;
			/* another user's file is never this run's: the profiler
			 * does not write into one (a shared directory) */
			if (S_ISREG(st.st_mode) && st.st_mtime >= start && st.st_uid == geteuid())
				found_file(rf, g.gl_pathv[j], &st, quiet);
			else if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode) && !rf->device)
				rf->device = strdup(g.gl_pathv[j]);
		}
		globfree(&g);
	}
	if (!by_pid)
		return;
	_cleanup_free_ char *all = template_glob(tmpl, 0);
	glob_t g;

	if (!all || glob(all, 0, NULL, &g) != 0)
		return;
	for (size_t j = 0; j < g.gl_pathc; j++) {
		size_t l = strlen(g.gl_pathv[j]);
		struct stat st;

		if ((l < 8 || strcmp(g.gl_pathv[j] + l - 8, ".pending") != 0) && left_pending(g.gl_pathv[j], start) &&
		    stat(g.gl_pathv[j], &st) == 0)
			found_file(rf, g.gl_pathv[j], &st, quiet);
	}
	globfree(&g);
}

/* The trace files the processes had open at exit (ST), under the names they
 * had then: a trace renamed while the program ran (logrotate) is counted
 * where it is now.  The user's own regular files, written since START. */
static void find_reported_files(struct run_found *rf, const struct run_status *st, time_t start, bool quiet)
{
	for (int k = 0; k < st->n_files; k++) {
		struct stat s;

		if (lstat(st->files[k], &s) == 0 && S_ISREG(s.st_mode) && s.st_mtime >= start && s.st_uid == geteuid())
			found_file(rf, st->files[k], &s, quiet);
	}
}

/* Find, merge and count the trace files this run produced. */
static void find_run_files(struct run_found *rf, const char *outputs, const struct run_pids *p, time_t start,
			   bool quiet)
{
	/* pass 1: when no trace file it was given could be opened, the
	 * profiler wrote the default one in the working directory instead */
	for (int pass = 0; pass < 2 && rf->files == 0; pass++) {
		_cleanup_free_ char *copy = pass ? absolute_outputs(CT_DEFAULT_OUTPUT) : strdup(outputs);
		char *save = NULL;

		if (!copy || (pass && !strstr(outputs, "file:")))
			break;
		for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			tok = strstrip(tok);
			if (startswith(tok, "file:"))
				find_sink_files(rf, tok + 5, p, start, quiet);
		}
	}
}

/* What was run: the program's argv[0], and whether the program filter was the default one,
 * which leaves the SDK's own processes out (CLI_SDK_EXCLUDED). */
struct run_what {
	const char *prog;
	bool sdk_filter;
};

/* The line for the processes the program filter left out (ST), if any: after NO_TRACE's
 * "no trace: " when they are why no trace was written.  True when said. */
static bool say_left_out(const struct run_status *st, const struct run_what *w, bool no_trace, const char *loss)
{
	const char *s = st->left_out == 1 ? "" : "es";

	if (!st->left_out || (!no_trace && !w->sdk_filter))
		return false;
	if (w->sdk_filter)
		fprintf(stderr, "clrtrace: %sthe program filter left out %d process%s of the .NET SDK (%s); -p '*' traces them%s\n",
			no_trace ? "no trace: " : "", st->left_out, s, st->left_names, loss);
	else
		fprintf(stderr, "clrtrace: no trace: the program filter (-p) left out %d process%s (%s)%s\n", st->left_out,
			s, st->left_names, loss);
	return true;
}

/* No trace file was written, and no process reported: say why when it can be told. */
static void say_no_trace(const struct run_status *st, const struct run_what *w, const char *loss)
{
	if (say_left_out(st, w, true, loss))
		return;
	if (run_is_nativeaot(w->prog))
		fprintf(stderr, "clrtrace: no trace: %s is a NativeAOT program, which has no CoreCLR to load a profiler; "
			"trace a JIT build of it (dotnet publish without -p:PublishAot=true)%s\n", w->prog, loss);
	else
		fprintf(stderr, "clrtrace: no trace file was written (was the program a .NET program?)%s\n", loss);
}

/* The line for N errors the budget or a -x Type:N limit left out, if any. */
static void say_errors_left_out(uint64_t n)
{
	if (n)
		fprintf(stderr, "clrtrace: %" PRIu64 " more error%s left out, not written (--budget, -x Type:N: not loss; "
			"trace.left_out counts them by type and site)\n", n, n == 1 ? "" : "s");
}

/* Print the summary line(s): where the trace went, what it holds, and the loss as the
 * profilers counted it (ST: a full disk keeps it out of the trace itself). */
static void say_summary(const struct run_found *rf, const char *outputs, pid_t pid, const struct run_status *st,
			const struct run_what *w, bool journal_down)
{
	char loss[800];

	run_status_text(st, loss, sizeof(loss));
	if (has_journal(outputs) && rf->files)
		fprintf(stderr, "clrtrace: trace sent to the journal\n");
	else if (has_journal(outputs))
		fprintf(stderr, "clrtrace: trace sent to the journal (journalctl CLRTRACE_PID=%d)%s%s\n", (int)pid,
			journal_down ? ", which was not reachable when the program started" : "", loss);
	if (rf->files == 0) {
		if (has_journal(outputs)) {
			/* no file to count: the profilers' own count */
			say_errors_left_out(st->left_out_errors);
			(void)say_left_out(st, w, false, "");
			return;
		}
		if (rf->device)
			fprintf(stderr, "clrtrace: trace sent to %s, not a regular file: nothing to count%s\n",
				rf->device, loss);
		else if (st->reports)
			fprintf(stderr, "clrtrace: no trace file is left%s\n", loss);
		else
			say_no_trace(st, w, loss);
		return;
	}
	/* errors first when the trace has them; older traces as before */
	if (rf->c.errors)
		fprintf(stderr, "clrtrace: %" PRIu64 " records, %" PRIu64 " throws of %" PRIu64 " errors (%" PRIu64
			" unhandled), ", rf->c.records, rf->c.throws, rf->c.errors, rf->c.errors_unhandled);
	else
		fprintf(stderr, "clrtrace: %" PRIu64 " records, %" PRIu64 " exceptions (%" PRIu64 " unhandled), ",
			rf->c.records, rf->c.exceptions, rf->c.unhandled);
	if (rf->files == 1) {
		fprintf(stderr, "trace in %s%s\n", rf->paths[0], loss);
	} else {
		fprintf(stderr, "traces in %d files%s:\n", rf->files, loss);
		for (int k = 0; k < rf->files; k++)
			fprintf(stderr, "clrtrace:   %s\n", rf->paths[k]);
	}
	if (st->removed)
		fprintf(stderr, "clrtrace: rotation removed %" PRIu64 " older trace file%s (the keep limit: retention, "
			"not loss; trace.rotated gives their seq ranges)\n", st->removed, st->removed == 1 ? "" : "s");
	say_errors_left_out(rf->c.left_out);
	(void)say_left_out(st, w, false, "");
}

/* Merge and summarise the trace files this run produced: those of the program PID and of every
 * process that reported on STATUS_FD, written since START; with the losses they reported.
 * Only mirrors of M's processes are merged. */
static void summarise(const char *outputs, pid_t pid, time_t start, int quiet, int status_fd,
		      const struct run_merge *m, const struct run_what *w, bool journal_down)
{
	struct run_found rf = { .merge = m };
	struct run_status st;
	pid_t pids[ELEMENTSOF(st.pids) + 1];
	struct run_pids p = { .pids = pids, .n = 1, .any = status_fd < 0 };

	run_status_collect(status_fd, &st);
	pids[0] = pid;
	for (int k = 0; k < st.n_pids; k++)
		if (st.pids[k] != pid)
			pids[p.n++] = st.pids[k];
	find_run_files(&rf, outputs, &p, start, quiet);
	find_reported_files(&rf, &st, start, quiet);
	if (!quiet)
		say_summary(&rf, outputs, pid, &st, w, journal_down);
	run_status_done(&st);
	strv_freep(&rf.paths);
	free(rf.ids);
	free(rf.device);
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

/* The signal state of a run: the dispositions and mask clrtrace started with. */
struct run_signals {
	struct sigaction old[ELEMENTSOF(forwarded)];
	sigset_t old_mask;
};

/* Put the forwarding handlers in place before the program exists; a signal that comes
 * meanwhile stays blocked until child_pid is known. */
static void signals_forward(struct run_signals *rs)
{
	struct sigaction fwd = { .sa_sigaction = forward_signal, .sa_flags = SA_SIGINFO | SA_RESTART };
	sigset_t block;

	sigemptyset(&block);
	for (size_t k = 0; k < ELEMENTSOF(forwarded); k++)
		sigaddset(&block, forwarded[k]);
	sigprocmask(SIG_BLOCK, &block, &rs->old_mask);
	sigfillset(&fwd.sa_mask);
	for (size_t k = 0; k < ELEMENTSOF(forwarded); k++) {
		sigaction(forwarded[k], NULL, &rs->old[k]);
		if (rs->old[k].sa_handler != SIG_IGN) /* ignored when we started: stays so */
			sigaction(forwarded[k], &fwd, NULL);
	}
}

/* The program is gone: ignore what comes now, it must not cut the merge short. */
static void signals_ignore(const struct run_signals *rs)
{
	struct sigaction ign = { .sa_handler = SIG_IGN };

	for (size_t k = 0; k < ELEMENTSOF(forwarded); k++)
		if (rs->old[k].sa_handler != SIG_IGN)
			sigaction(forwarded[k], &ign, NULL);
}

/* Parse run's options into O and QUIET; *I ends at the program.  Returns 1 to go on,
 * 0 after --help, EXIT_USAGE negated on a bad argument. */
static int parse_run_args(int argc, char **argv, struct trace_opts *o, int *quiet, const char **ready, int *i)
{
	for (*i = 1; *i < argc; (*i)++) {
		int r;

		if (strcmp(argv[*i], "--") == 0) {
			(*i)++;
			break;
		}
		if (strcmp(argv[*i], "-h") == 0 || strcmp(argv[*i], "--help") == 0) {
			printf("Usage: clrtrace run [OPTIONS] -- PROGRAM [ARGS...]\n\n"
			       "Run PROGRAM under the tracer and exit with its status.\n\nOptions:\n%s"
			       "  -q, --quiet             no summary line at the end\n"
			       "      --ready REGEX       the program is ready (clrtrace startup) at its first line on\n"
			       "                          stdout that matches REGEX (POSIX extended); its stdout\n"
			       "                          then passes through clrtrace\n",
			       trace_opts_help);
			return 0;
		}
		if (strcmp(argv[*i], "-q") == 0 || strcmp(argv[*i], "--quiet") == 0) {
			*quiet = 1;
			continue;
		}
		if (strcmp(argv[*i], "--ready") == 0) {
			if (*i + 1 >= argc) {
				cli_error("run: --ready needs a regular expression");
				return -EXIT_USAGE;
			}
			*ready = argv[++*i];
			continue;
		}
		r = trace_opts_parse(o, argc, argv, i);
		if (r < 0)
			return -EXIT_USAGE;
		if (r == 0) {
			if (argv[*i][0] == '-') {
				cli_error("run: unknown option '%s' (try 'clrtrace run --help')", argv[*i]);
				return -EXIT_USAGE;
			}
			break; /* the program, without -- */
		}
	}
	if (*i >= argc) {
		cli_error("run: no program given (clrtrace run [OPTIONS] -- PROGRAM [ARGS...])");
		return -EXIT_USAGE;
	}
	return 1;
}

/* Is NAME one of the SDK's own programs, left out of a run by default (CLI_SDK_EXCLUDED)? */
static bool sdk_program(const char *name)
{
	size_t l = strlen(name);

	for (const char *p = CLI_SDK_EXCLUDED; (p = strchr(p, '!')); p++)
		if (strncmp(p + 1, name, l) == 0 && (p[l + 1] == ',' || !p[l + 1]))
			return true;
	return false;
}

/* Complete O for the program PROG: its processes, absolute outputs that can be written. */
static int prepare_run(struct trace_opts *o, char **prog, char **name)
{
	if (trace_opts_finish(o) < 0)
		return -EXIT_USAGE;
	*name = config_program_name(prog);
	/* every .NET process started under run (a wrapper script's too), but the SDK's own;
	 * unless the program is one of those: then it alone */
	if (!o->processes && *name && sdk_program(*name))
		o->processes = config_glob_escape(*name);
	if (!o->processes)
		o->processes = strdup(CLI_SDK_EXCLUDED);
	char *abs = absolute_outputs(o->outputs ? o->outputs : CT_DEFAULT_OUTPUT);

	free(o->outputs);
	o->outputs = abs;
	if (!o->outputs || run_check_outputs(o->outputs, *name) < 0)
		return -EXIT_USAGE;
	return 0;
}

/* The program's environment: ours, with ENV's variables (and STATUS_ENV) in place of any of the
 * same name.  The strings stay ours; the array is malloc'd. */
static char **spawn_environment(char **env, char *status_env, char *exec_env, char *ready_env)
{
	size_t n_env = 0, n_add = 0, k = 0;
	char **v;

	while (environ && environ[n_env])
		n_env++;
	while (env[n_add])
		n_add++;
	v = calloc(n_env + n_add + 4, sizeof(*v));
	if (!v)
		return NULL;
	for (size_t i = 0; i < n_env; i++) {
		size_t l = strcspn(environ[i], "=");
		bool replaced = (status_env && strncmp(environ[i], status_env, l + 1) == 0) ||
				strncmp(environ[i], exec_env, l + 1) == 0 ||
				(ready_env && strncmp(environ[i], ready_env, l + 1) == 0);

		for (size_t j = 0; j < n_add && !replaced; j++)
			replaced = strncmp(environ[i], env[j], l + 1) == 0;
		if (!replaced)
			v[k++] = environ[i];
	}
	for (size_t j = 0; j < n_add; j++)
		v[k++] = env[j];
	if (status_env)
		v[k++] = status_env;
	v[k++] = exec_env;
	if (ready_env)
		v[k++] = ready_env;
	v[k] = NULL;
	return v;
}

/* What the child needs, in the memory it shares with clrtrace until it execs. */
struct spawn_child {
	char **prog;
	char **envp;
	const struct run_signals *rs;
	const struct run_ready *ready;
	int error; /* errno of the exec that failed */
};

/* The child, on a stack of its own: the signals as clrtrace found them, then exec (a file the
 * kernel cannot run goes to /bin/sh, as with execvp).  System calls only: clrtrace waits,
 * its memory shared, until the child execs or exits.  Not instrumented: the sanitizers know
 * nothing of this stack (ASan warns at the _exit, and would then report falsely). */
__attribute__((no_sanitize("address", "undefined"))) static int spawn_child_main(void *arg)
{
	struct spawn_child *c = arg;

	for (size_t k = 0; k < ELEMENTSOF(forwarded); k++)
		sigaction(forwarded[k], &c->rs->old[k], NULL);
	sigprocmask(SIG_SETMASK, &c->rs->old_mask, NULL);
	run_ready_child(c->ready);
	execvpe(c->prog[0], c->prog, c->envp);
	c->error = errno;
	_exit(c->error == ENOENT ? 127 : 126);
}

/* Start the program PROG with ENV (and STATUS_ENV), its signals as clrtrace found them.  A
 * vfork-style clone: a fork would copy clrtrace's page tables and fault its pages in again for
 * a process that execs at once (about 4 ms of CPU time on a small VM; DESIGN.md, Measured decisions).
 * The pid, or -1 after saying why not (*STATUS: the exit status to give). */
static pid_t spawn_program(char **prog, char **env, char *status_env, const struct run_signals *rs,
			   const struct run_ready *ready, int *status)
{
	/* when the program started, for the start-up report (category startup):
	 * the wall clock of the records, read a few microseconds before the exec */
	char exec_env[64];
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	snprintf(exec_env, sizeof(exec_env), "CLRTRACE_EXEC_NS=%lld",
		 (long long)now.tv_sec * 1000000000LL + now.tv_nsec);
	_cleanup_free_ char **envp =
		spawn_environment(env, status_env, exec_env, ready->on ? (char *)ready->env : NULL);
	struct spawn_child c = { .prog = prog, .envp = envp, .rs = rs, .ready = ready };
	size_t argc = 0, stack_size;
	sigset_t all, old;
	void *stack;
	pid_t pid;

	*status = 1;
	while (prog[argc])
		argc++;
	/* execvpe's path buffer, and the argv it copies onto the stack for a script without #!
	 * (pages never touched cost nothing) */
	stack_size = (256 * 1024 + (argc + 2) * sizeof(char *) + 4095) & ~(size_t)4095;
	if (!envp) {
		cli_error("run: out of memory");
		return -1;
	}
	stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED) {
		cli_error("run: cannot start the program: %s", strerror(errno));
		return -1;
	}
	/* no handler of ours may run in the child before it resets them */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	pid = clone(spawn_child_main, (char *)stack + stack_size, CLONE_VM | CLONE_VFORK | SIGCHLD, &c);
	if (pid < 0)
		c.error = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	munmap(stack, stack_size);
	if (pid < 0) {
		cli_error("run: cannot start the program: %s", strerror(c.error));
		return -1;
	}
	if (c.error) {
		(void)waitpid(pid, NULL, 0);
		cli_error("run: cannot run '%s': %s", prog[0], strerror(c.error));
		*status = c.error == ENOENT ? 127 : 126;
		return -1;
	}
	return pid;
}

/* Exit as the program did: die of its signal, so a shell or service manager sees the same
 * death (not of a signal that would dump clrtrace's core), else return its status. */
static int exit_as(int status, const struct run_signals *rs)
{
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);

		if (!dumps_core(sig)) {
			fflush(NULL);
			sigaction(sig, &(struct sigaction){ .sa_handler = SIG_DFL }, NULL);
			sigprocmask(SIG_SETMASK, &rs->old_mask, NULL);
			raise(sig);
		}
		return 128 + sig; /* PID 1 does not die of its own signals */
	}
	return WEXITSTATUS(status);
}

int cmd_run(int argc, char **argv)
{
	_cleanup_(trace_opts_done) struct trace_opts o = { 0 };
	_cleanup_(strv_freep) char **env = NULL;
	_cleanup_free_ char *name = NULL;
	int i, r, wr, status, quiet = 0;
	bool journal_down;
	pid_t pid;
	time_t start = time(NULL);
	struct run_signals rs;
	struct run_ready ready = { 0 };
	const char *ready_re = NULL;

	r = parse_run_args(argc, argv, &o, &quiet, &ready_re, &i);
	if (r <= 0)
		return -r;
	r = prepare_run(&o, argv + i, &name);
	if (r < 0)
		return -r;
	struct run_what what = { .prog = argv[i], .sdk_filter = strcmp(o.processes, CLI_SDK_EXCLUDED) == 0 };

	journal_down = has_journal(o.outputs) && run_check_journal() < 0;
	env = trace_opts_environment(&o);
	if (!env) {
		cli_error("out of memory");
		return 1;
	}
	if (ready_re && run_ready_prepare(&ready, ready_re) < 0)
		return EXIT_USAGE;
	char *status_env = NULL;
	int status_fd = run_status_listen(&status_env); /* no summary of losses without it */

	fflush(NULL);
	signals_forward(&rs);
	pid = spawn_program(argv + i, env, status_env, &rs, &ready, &status);
	if (pid < 0) {
		sigprocmask(SIG_SETMASK, &rs.old_mask, NULL);
		if (status_fd >= 0)
			close(status_fd);
		free(status_env);
		return status;
	}
	child_pid = pid;
	run_ready_started(&ready);
	sigprocmask(SIG_SETMASK, &rs.old_mask, NULL);
	wr = wait_program(pid);
	signals_ignore(&rs);
	run_ready_done(&ready);
	child_pid = 0;
	/* a zombie until reaped: its start time still tells its mirror */
	struct run_merge merge = { .run_id = status_env ? strchr(status_env, '@') : NULL, .child = pid,
				   .child_ticks = pending_start_ticks(pid) };

	if (merge.run_id)
		merge.run_id++;
	if (wr < 0 || waitpid(pid, &status, 0) < 0) {
		cli_error("run: waiting for the program: %s", strerror(wr < 0 ? -wr : errno));
		return 1;
	}
	summarise(o.outputs, pid, start, quiet, status_fd, &merge, &what, journal_down);
	if (status_fd >= 0)
		close(status_fd);
	free(status_env);
	return exit_as(status, &rs);
}
