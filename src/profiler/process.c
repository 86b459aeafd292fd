/* SPDX-License-Identifier: MIT */
/* Who the traced process is: its command line, its name, and whether a
 * privileged run is one the user left out anyway. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/config.h"
#include "common/util.h"
#include "profiler/process.h"

/* /proc/self/cmdline as a malloc'd NUL-separated block. */
char *ct_read_cmdline(size_t *len)
{
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	char *buf = NULL;
	size_t cap = 0, n = 0;

	if (fd < 0)
		return NULL;
	for (;;) {
		if (n + 4096 > cap) {
			char *nb = realloc(buf, cap + 65536);
			if (!nb)
				break;
			buf = nb;
			cap += 65536;
		}
		ssize_t k = read(fd, buf + n, cap - n - 1);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		n += (size_t)k;
	}
	close(fd);
	if (buf)
		buf[n] = 0;
	*len = n;
	return buf;
}

/* The program's name from /proc/self/cmdline (see config_program_name). */
char *ct_program_name(const char *cmd, size_t len)
{
	_cleanup_free_ char **argv = NULL;
	size_t n = 0;
	char *name;

	for (const char *p = cmd; p < cmd + len; p += strlen(p) + 1)
		n++;
	argv = calloc(n + 1, sizeof(char *));
	if (!argv || n == 0)
		return strdup("dotnet");
	n = 0;
	for (const char *p = cmd; p < cmd + len; p += strlen(p) + 1)
		argv[n++] = (char *)p;
	name = config_program_name(argv);
	return name ? name : strdup("dotnet");
}

/* The program's name, and for the SDK's `dotnet` (no dll named) its first
 * argument when that is a command ("dotnet build", not "dotnet --info"). */
char *ct_program_label(const char *program, const char *cmd, size_t len)
{
	size_t l0 = strlen(cmd);
	const char *arg = l0 + 1 < len ? cmd + l0 + 1 : NULL;
	char *label = NULL;

	if (strcmp(program, "dotnet") != 0 || !arg || !*arg || *arg == '-')
		return strdup(program);
	return asprintf(&label, "dotnet %s", arg) < 0 ? NULL : label;
}

/* Under AT_SECURE: does CLRTRACE_PROCESSES leave PROGRAM out anyway?
 * (Then no line: `clrtrace run` sets it, and a privileged child of the
 * traced program has nothing to say.)  A variable that only narrows what
 * is traced is safe to read here. */
bool ct_secure_excluded(const char *program)
{
	const char *v = getenv("CLRTRACE_PROCESSES"), *why;
	struct ct_globs g = { 0 };
	bool out;

	if (!v || config_parse_globs(v, false, &g, &why) < 0)
		return false;
	out = !globs_match(&g, program, NULL);
	globs_done(&g);
	return out;
}
