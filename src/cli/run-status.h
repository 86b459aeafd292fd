/* SPDX-License-Identifier: MIT */
/* The losses traced processes report to `clrtrace run` (run-status.c). */
#pragma once

#include <stdint.h>

/* Losses by kind of sink: the same record may be lost to two of them. */
enum { RS_FILE, RS_JOURNAL, RS_STDERR, _RS_MAX };

struct run_status {
	int reports; /* processes that reported */
	int pids[256]; /* the first processes that reported: whose trace files are ours */
	int n_pids;
	struct {
		uint64_t lost;     /* records lost, all processes */
		char reasons[256]; /* distinct reasons, ", " between */
	} sink[_RS_MAX];
	char *files[16]; /* the trace files the processes had open at exit (renamed ones too) */
	int n_files;
	uint64_t removed;     /* rotated trace files the keep limit removed (retention) */
	uint64_t left_out_errors; /* errors the budget or -x Type:N left out (trace.left_out) */
	int left_out;         /* processes the program filter left out */
	char left_names[256]; /* their distinct names ("dotnet build", "MSBuild"), ", " between */
};

/* "; N records lost: REASONS" (one kind of sink), or by kind; "" if none. */
void run_status_text(const struct run_status *st, char *buf, size_t size);

/* Listen; the fd (or -errno), *ENV the CLRTRACE_STATUS=... entry. */
int run_status_listen(char **env);
/* Read every report that came; never waits. */
void run_status_collect(int fd, struct run_status *st);
/* Free what collect allocated. */
void run_status_done(struct run_status *st);
