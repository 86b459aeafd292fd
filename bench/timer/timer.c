/* SPDX-License-Identifier: MIT */
/*
 * timer -o FILE PROGRAM [ARGS...]: run PROGRAM, exit with its status, and
 * write "WALL_NS CPU_NS" to FILE: the wall time from just before the fork to
 * the end of the wait, and the user + system time of the process and of all
 * it waited for (wait4's rusage, in microseconds, where time(1) prints
 * hundredths of a second: too coarse for a start-up of 100 ms).
 * bench/startup.sh builds it with the C compiler alone.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* CLOCK_MONOTONIC in nanoseconds. */
static long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* A timeval in nanoseconds. */
static long long tv_ns(struct timeval tv)
{
	return tv.tv_sec * 1000000000LL + tv.tv_usec * 1000LL;
}

int main(int argc, char **argv)
{
	struct rusage ru;
	long long t0, t1;
	int status;
	pid_t pid;
	FILE *f;

	if (argc < 4 || strcmp(argv[1], "-o") != 0) {
		fprintf(stderr, "usage: timer -o FILE PROGRAM [ARGS...]\n");
		return 2;
	}
	t0 = mono_ns();
	pid = fork();
	if (pid < 0) {
		perror("timer: fork");
		return 2;
	}
	if (pid == 0) {
		execvp(argv[3], argv + 3);
		fprintf(stderr, "timer: cannot run %s: %s\n", argv[3], strerror(errno));
		_exit(127);
	}
	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR) {
			perror("timer: wait4");
			return 2;
		}
	t1 = mono_ns();
	f = fopen(argv[2], "we");
	if (!f || fprintf(f, "%lld %lld\n", t1 - t0, tv_ns(ru.ru_utime) + tv_ns(ru.ru_stime)) < 0 || fclose(f) != 0) {
		perror("timer: writing the result");
		return 2;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
