/* SPDX-License-Identifier: MIT */
/* clrtrace run --ready REGEX: the program's standard output passes through
 * clrtrace, and the wall-clock time of its first line that matches goes to
 * the profiler through a pipe (CLRTRACE_READY_FD), which writes it in the
 * trace as startup.ready at the runtime's shutdown (run-ready.c). */
#pragma once

#include <pthread.h>
#include <regex.h>
#include <stdbool.h>

struct run_ready {
	bool on;
	regex_t re;
	int out[2];  /* the program's stdout: it writes [1], the relay reads [0] */
	int mark[2]; /* the ready time: the relay writes [1], the profiler reads [0] */
	char env[40]; /* CLRTRACE_READY_FD=N */
	pthread_t relay;
	bool relaying;
};

/* Compile REGEX (POSIX extended) and make the pipes; 0, or -1 after saying why. */
int run_ready_prepare(struct run_ready *r, const char *regex);
/* In the child before its exec (system calls only): stdout to the pipe,
 * the mark's read end kept across the exec. */
void run_ready_child(const struct run_ready *r);
/* In clrtrace once the program runs: close the child's ends, start the relay. */
void run_ready_started(struct run_ready *r);
/* The program ended: let the relay copy what is left (a second at most). */
void run_ready_done(struct run_ready *r);
