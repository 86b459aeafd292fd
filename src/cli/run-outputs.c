/* SPDX-License-Identifier: MIT */
/* `run` looks at its outputs before it starts the program: a trace file that
 * cannot be written is an error (the program is not started); a journal
 * that is not there now is said (its sink waits for it and counts the loss). */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/escape.h"
#include "cli/run-outputs.h"
#include "common/config.h"
#include "common/util.h"

#define JOURNAL_SOCKET "/run/systemd/journal/socket"

/* Why PATH cannot be a trace file (NULL: it can).  NAME_KNOWN: PATH is
 * the very name the program will use; else only its directory is looked
 * at (the name holds the program's pid or start time, which run does not
 * know: whatever lies under a name made with run's own pid, another user's
 * symlink in a shared directory, is nothing the program would open). */
static const char *file_problem(const char *path, bool name_known, int *err)
{
	_cleanup_free_ char *copy = strdup(path);
	const char *dir;
	struct stat st;

	if (!copy)
		return *err = ENOMEM, "";
	if (!name_known)
		errno = ENOENT;
	else if (lstat(path, &st) == 0) {
		if (S_ISLNK(st.st_mode))
			return *err = 0, "is a symbolic link (the tracer does not follow them)";
		if (S_ISDIR(st.st_mode))
			return *err = EISDIR, "";
		if (access(path, W_OK) < 0)
			return *err = errno, "";
		return NULL;
	}
	if (errno != ENOENT)
		return *err = errno, "";
	dir = dirname(copy);
	if (stat(dir, &st) < 0)
		return *err = errno, "its directory: ";
	if (!S_ISDIR(st.st_mode))
		return *err = ENOTDIR, "its directory: ";
	if (access(dir, W_OK | X_OK) < 0)
		return *err = errno, "its directory: ";
	return NULL;
}

/* Can every file: sink be written? */
int run_check_outputs(const char *outputs, const char *name)
{
	_cleanup_free_ char *copy = strdup(outputs);
	char *save = NULL;

	if (!copy)
		return -ENOMEM;
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		tok = strstrip(tok);
		if (!startswith(tok, "file:"))
			continue;
		/* the program's pid and start time are not known yet: with %p or %t
		 * in the name, only its directory is checked (%p in the directory:
		 * not even that) */
		const char *slash = strrchr(tok + 5, '/');
		bool name_known = !strstr(tok + 5, "%p") && !strstr(tok + 5, "%t");
		_cleanup_free_ char *path = NULL, *q = NULL;
		const char *why;
		int err = 0;

		if (slash && memmem(tok + 5, (size_t)(slash - tok - 5), "%p", 2))
			continue;
		path = config_expand_path(tok + 5, (int)getpid(), name ? name : "program", (long long)time(NULL));
		if (!path)
			continue; /* a bad template: the profiler says so */
		q = esc_strdup(name_known ? path : tok + 5);
		why = file_problem(path, name_known, &err);
		if (why) {
			cli_error("run: --output file:%s: %s%s; the program was not started", q ? q : "?", why,
				  err ? strerror(err) : "");
			return -EINVAL;
		}
	}
	return 0;
}

/* Is the journal reachable now? */
int run_check_journal(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX, .sun_path = JOURNAL_SOCKET };
	int fd, r = 0;

	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		r = -errno;
	else if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		r = -errno;
	if (fd >= 0)
		close(fd);
	if (r < 0)
		cli_error("run: the journal is not reachable (%s%s): its records are lost until it is",
			  r == -ENOENT ? "no socket at " : "", r == -ENOENT ? JOURNAL_SOCKET : strerror(-r));
	return r;
}
