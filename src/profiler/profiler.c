/* SPDX-License-Identifier: MIT */
/*
 * Initialize and Shutdown: the info interface, the configuration, the
 * sinks, the event mask, runtime.shutdown, and the flush on exit().
 * runtime.init is built in runtime-init.c, who we are in process.c.
 */
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "common/status-msg.h"
#include "common/config.h"
#include "common/util.h"
#include "profiler/abi/info.h"
#include "profiler/core/tracer.h"
#include "profiler/event-mask.h"
#include "profiler/families/startup.h"
#include "profiler/families/startup-tier.h"
#include "profiler/families/handlers.h"
#include "profiler/families/aspnet.h"
#include "profiler/families/requests.h"
#include "profiler/process.h"
#include "profiler/runtime-init.h"
#include "profiler/start.h"

/* Config warnings go straight to stderr, one line each. */
static void config_warn(void *ud, const char *line)
{
	ct_say_once(line, "%s", line);
}

enum ct_load ct_loaded;
unsigned ct_not_enabled;

/* exit() without Shutdown (Environment.Exit from some paths): end what
 * the families have open (the exiting thread's exception stories), flush. */
static void on_exit_flush(void)
{
	struct ct_thread *t;

	if (!atomic_load(&ct.active))
		return;
	t = ct_thread_get();
	if (t && ct_families_have_exit()) {
		/* the lock its callbacks hold: Shutdown on another thread may
		 * be ending this thread's stories (exit() from inside one of
		 * its callbacks already holds it) */
		bool locked = !t->in_callback;

		if (locked)
			ct_thread_lock(t);
		ct_families_exit(t);
		if (locked)
			ct_thread_unlock(t);
	}
	ct_flush_all(false);
}

/* Open the configured outputs, telling the sinks who we are; when they
 * fell back to the default file, the configuration says so (runtime.init
 * tells the truth).  The number open, or -errno. */
static int open_sinks(void)
{
	const struct ct_sink_spec spec = {
		.outputs = ct.cfg.outputs,
		.n_outputs = ct.cfg.n_outputs,
		.program = ct.program,
		.ident = ct.cfg.ident,
		.pid = ct.pid,
		.start_ns = ct.start_ns,
		.flush_ms = ct.cfg.flush_ms,
		.journal_burst = ct.cfg.journal_burst,
		.journal_interval_s = ct.cfg.journal_interval_s,
		.status = secure_getenv("CLRTRACE_STATUS"),
		.say = ct_say_once,
	};
	const char *why = NULL;
	bool fell_back;
	int r;

	r = ct_sinks_open(&spec, &fell_back);
	if (r >= 0 && fell_back)
		(void)config_parse_outputs(CT_DEFAULT_OUTPUT, &ct.cfg, &why);
	return r;
}


/* Take the highest ICorProfilerInfo the runtime offers (5 or later). */
static bool query_info(com_object *info_unk)
{
	for (int v = 15; v >= 5 && !ct.info; v--)
		if (SUCCEEDED(info_QueryInterface(info_unk, &IID_ICorProfilerInfo[v], (void **)&ct.info)) && ct.info)
			ct.info_version = v;
	return ct.info != NULL;
}

/* Let go of the info interface. */
static void release_info(void)
{
	if (ct.info)
		info_Release(ct.info);
	ct.info = NULL;
}

/* setuid, setgid or file capabilities: the environment is the caller's, so
 * nothing in it may choose where a privileged process writes, and the
 * default file would be in the caller's working directory: do not trace
 * (DESIGN.md, Privileged programs). */
static HRESULT refuse_privileged(void)
{
	if (!ct_secure_excluded(ct.program))
		ct_say_once("secure", "not tracing %s: it runs with raised privileges (setuid, setgid or file "
			    "capabilities), where CLRTRACE_* variables cannot be trusted", ct.program);
	free(ct.program);
	ct.program = NULL;
	release_info();
	return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
}

/* Ask the runtime for the callbacks of the enabled categories; 0, or -EIO
 * (said) when it refuses. */
int ct_set_event_mask(void)
{
	uint32_t low, high;

	ct_category_masks(ct.cfg.categories, &low, &high);
	/* a stack snapshot tells a native boundary from an unhandled
	 * exception (legacy EH: at every throw; new EH: only when a search
	 * found no catcher; see exm_input.verdict) */
	if (low & COR_PRF_MONITOR_EXCEPTIONS)
		low |= COR_PRF_ENABLE_STACK_SNAPSHOT;
	if (FAILED(info_SetEventMask2(ct.info, low, high))) {
		ct_say_once("mask", "the runtime refused the event mask 0x%x/0x%x; not tracing", low, high);
		return -EIO;
	}
	return 0;
}

/* Leave out the configured categories the runtime refuses to a profiler
 * loaded as HOW, in one line (the CLI refuses them before). */
static void drop_refused(enum ct_load how, bool attached)
{
	unsigned refused = ct_load_refused(how, ct.cfg.categories) |
			   (attached ? ct_load_refused(LOAD_ATTACH, ct.cfg.categories) : 0);
	char names[256] = "";

	ct_not_enabled = refused;
	if (!refused)
		return;
	for (int i = 0; i < _CAT_MAX; i++)
		if (refused & (1u << i)) {
			if (*names)
				strncat(names, ",", sizeof(names) - strlen(names) - 1);
			strncat(names, ct_categories[i].name, sizeof(names) - strlen(names) - 1);
		}
	ct_say_once("refused", "loaded %s, %s cannot be traced; tracing the rest",
		    how == LOAD_NOTIFICATION ? "as a notification profiler" : "by attach", names);
	ct.cfg.categories &= ~refused;
}

/* The program filter left this process out: tell `clrtrace run` (CLRTRACE_STATUS), which
 * names the processes left out when the run ends ("clrtrace-left-out 1 PID LABEL"). */
static void report_left_out(const struct ct_start *start, const char *cmd, size_t cmd_len)
{
	const char *sock = start->getenv("CLRTRACE_STATUS");
	_cleanup_free_ char *label = NULL, *msg = NULL;
	int n;

	if (!sock || !cmd || !(label = ct_program_label(ct.program, cmd, cmd_len)))
		return;
	n = asprintf(&msg, CT_LEFT_OUT_FMT, (int)getpid(), label);
	if (n > 0)
		ct_status_send(sock, msg, (size_t)n);
}

/* Read the configuration and start tracing, or step aside. */
HRESULT ct_start(struct ct_thread *t, com_object *info_unk, const struct ct_start *start)
{
	_cleanup_free_ char *cmd = NULL;
	size_t cmd_len = 0;
	_cleanup_(ct_runtime_desc_done) struct ct_runtime_desc runtime = { 0 };
	int r;

	/* the same file as main and notification profiler: one copy, one trace */
	if (atomic_load(&ct.active)) {
		ct_say_once("twice", "clrtrace is loaded twice from the same library; the second load is refused "
			    "(a second instance must be a copy of the library under another path)");
		return CORPROF_E_PROFILER_ALREADY_ACTIVE;
	}
	/* the journal sink reads records back with jansson, on any thread:
	 * its hash seed is set once, here, before there are several */
	json_object_seed(0);
	ct_families_start();
	if (!query_info(info_unk)) {
		ct_say_once("info", "the runtime offers no ICorProfilerInfo5 or later; not tracing");
		return E_FAIL;
	}
	ct.pid = getpid();
	ct.start_ns = now_ns();
	cmd = ct_read_cmdline(&cmd_len);
	ct.program = cmd ? ct_program_name(cmd, cmd_len) : strdup("dotnet");
	if (!ct.program)
		goto fail;
	if (getauxval(AT_SECURE))
		return refuse_privileged();
	ct_loaded = start->how;
	r = config_load(&ct.cfg, start->getenv, config_warn, NULL);
	if (r < 0)
		goto fail;
	drop_refused(start->how, start->attached);
	ct.events = ct_event_mask(ct.cfg.categories);
	if (!globs_match(&ct.cfg.processes, ct.program, NULL)) {
		report_left_out(start, cmd, cmd_len);
		config_done(&ct.cfg);
		release_info();
		return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
	}
	r = open_sinks();
	if (r < 0) {
		if (r == -ENOMEM) /* else each output has said why */
			ct_say_once("nosink", "out of memory opening the outputs; not tracing");
		goto fail;
	}
	ct_runtime_describe(&runtime);
	if (ct_set_event_mask() < 0) {
		ct_trace_close(false);
		goto fail;
	}
	atomic_store(&ct.active, true);
	ct_emit_runtime_init(t, &runtime, cmd, cmd_len);
	ct_startup_config(t);
	(void)ct_startup_tier_start();
	(void)ct_requests_start();
	/* no SIGABRT handler: the runtime resets every handler before its own
	 * aborts, and what an abort leaves unwritten is in FILE.<pid>.pending */
	atexit(on_exit_flush);
	return S_OK;
fail:
	config_done(&ct.cfg);
	release_info();
	return E_FAIL;
}

/* The environment, as config_load reads it (never under AT_SECURE). */
static const char *env_get(const char *name)
{
	return secure_getenv(name);
}

/* Startup, as the main profiler or a notification one. */
HRESULT on_Initialize(struct ct_thread *t, com_object *info_unk)
{
	const struct ct_start start = {
		.how = ct_notification_clsid ? LOAD_NOTIFICATION : LOAD_STARTUP,
		.getenv = env_get,
	};

	return ct_start(t, info_unk, &start);
}

/* The end of the trace: totals in the last record, EV (runtime.shutdown
 * or runtime.detach), flush, close. */
void ct_stop(struct ct_thread *t, enum ct_event ev)
{
	struct ct_totals tot;
	struct jw bufs[CT_FAMILY_MAX] = { 0 };
	JW_FIELDS(totals, 2 + CT_FAMILY_MAX);
	JW_FIELDS(f, 1);

	if (!atomic_load(&ct.active) || atomic_exchange(&ct.shut_down, true))
		return;
	/* Environment.Exit inside a catch or finally: those stories end now */
	ct_families_exit(t);
	ct_startup_end(t);
	ct_aspnet_stop();
	ct_startup_tier_stop();
	ct_requests_stop();
	ct_trace_totals(&tot);
	jwf_int(&totals, "records", (int64_t)tot.records + 1);
	jwf_int(&totals, "dropped", (int64_t)tot.dropped);
	ct_families_totals(&totals, bufs);
	jwf_obj(&f, "totals", &totals);
	ct_emit(t, ev, PH_INSTANT, 0, &f);
	for (size_t i = 0; i < CT_FAMILY_MAX; i++)
		jw_free(&bufs[i]);
	atomic_store(&ct.active, false);
	ct_trace_close(ev == EV_RUNTIME_SHUTDOWN);
}

/* The runtime is going away. */
HRESULT on_Shutdown(struct ct_thread *t)
{
	ct_stop(t, EV_RUNTIME_SHUTDOWN);
	return S_OK;
}

/* clrtrace is a main profiler, or a notification-only one when the
 * runtime asked for that CLSID (run --beside-profiler, attach's fallback). */
HRESULT on_LoadAsNotificationOnly(struct ct_thread *t, BOOL *notification_only)
{
	if (notification_only)
		*notification_only = ct_notification_clsid;
	return S_OK;
}
