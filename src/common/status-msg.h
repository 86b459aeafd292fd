/* SPDX-License-Identifier: MIT */
/*
 * The datagrams a traced process sends `clrtrace run` on the abstract unix
 * socket CLRTRACE_STATUS names (profiler/sinks/sinks.c, profiler.c), which
 * it reads (cli/run-status.c): their one definition.
 *
 * At exit:    "clrtrace-status 1 PID RECORDS\n", then lines
 *             "LOST\tWHERE\tREASONS\n" (a sink's loss), "removed\tN\n"
 *             (files the rotation removed), "left_out\tN\n" (errors the
 *             budget or -x left out: not loss), "open\tPATH\n" (a trace
 *             file open at the end).
 * Left out:   "clrtrace-left-out 1 PID LABEL\n" (the program filter).
 */
#pragma once

#include <inttypes.h>

#define CT_STATUS_TAG "clrtrace-status 1 "
#define CT_LEFT_OUT_TAG "clrtrace-left-out 1 "
/* The length of a tag or line key K (a literal). */
#define CT_STATUS_LEN(k) (sizeof(k) - 1)

/* printf formats of the lines, in the order above */
#define CT_STATUS_HEAD_FMT CT_STATUS_TAG "%d %" PRIu64 "\n"    /* pid, records */
#define CT_STATUS_LOST_FMT "%" PRIu64 "\t%s\t%s\n"             /* lost, where, reasons */
#define CT_STATUS_REMOVED "removed\t"
#define CT_STATUS_REMOVED_FMT CT_STATUS_REMOVED "%" PRIu64 "\n" /* files removed */
#define CT_STATUS_LEFT_OUT "left_out\t"
#define CT_STATUS_LEFT_OUT_FMT CT_STATUS_LEFT_OUT "%" PRIu64 "\n" /* errors left out */
#define CT_STATUS_OPEN "open\t"
#define CT_STATUS_OPEN_FMT CT_STATUS_OPEN "%.*s\n"             /* length, path */
#define CT_LEFT_OUT_FMT CT_LEFT_OUT_TAG "%d %s\n"              /* pid, label */
