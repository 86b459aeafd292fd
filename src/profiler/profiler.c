/* SPDX-License-Identifier: MIT */
/*
 * Initialize and Shutdown: configuration, the event mask, the sinks,
 * runtime.init / runtime.shutdown, and the flushes on every way out.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "common/config.h"
#include "profiler/families/handlers.h"
#include "profiler/core/tracer.h"
#include "common/util.h"

/* Hooks other families may provide (weak: absent is fine). */
__attribute__((weak)) json_t *ct_exceptions_totals(void);
__attribute__((weak)) void ct_exceptions_exit(struct ct_thread *t);

/* Config warnings go straight to stderr, one line each. */
static void config_warn(void *ud, const char *line)
{
	ct_say_once(line, "%s", line);
}

static const char *env_get(const char *name)
{
	return secure_getenv(name);
}

/* Under AT_SECURE: does CLRTRACE_PROCESSES leave this program out anyway?
 * (Then no line: `clrtrace run` sets it, and a privileged child of the
 * traced program has nothing to say.)  A variable that only narrows what
 * is traced is safe to read here. */
static bool secure_excluded(void)
{
	const char *v = getenv("CLRTRACE_PROCESSES"), *why;
	struct ct_globs g = { 0 };
	bool out;

	if (!v || config_parse_globs(v, false, &g, &why) < 0)
		return false;
	out = !globs_match(&g, ct.program, NULL);
	globs_done(&g);
	return out;
}

/* /proc/self/cmdline as a malloc'd NUL-separated block. */
static char *read_cmdline(size_t *len)
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
static char *program_name(const char *cmd, size_t len)
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

/* The effective configuration, for runtime.init. */
static json_t *config_json(void)
{
	json_t *cats = json_array(), *outs = json_array(), *exc = json_array(), *procs = json_array();

	for (int i = 0; i < _CAT_MAX; i++)
		if (ct_categories[i].optional && ct_on(i))
			json_array_append_new(cats, json_string(ct_categories[i].name));
	for (size_t i = 0; i < ct.cfg.n_outputs; i++) {
		const struct ct_output *o = &ct.cfg.outputs[i];
		char *s = NULL;

		if (o->kind == OUT_FILE && asprintf(&s, "file:%s", o->path) >= 0) {
			json_array_append_new(outs, json_string(s));
			free(s);
		} else
			json_array_append_new(outs, json_string(ct_output_kind_to_string(o->kind)));
	}
	for (size_t i = 0; i < ct.cfg.exceptions.n; i++) {
		const struct ct_glob *g = &ct.cfg.exceptions.items[i];
		char *s = NULL;

		if (asprintf(&s, "%s%s", g->exclude ? "!" : "", g->pattern) >= 0) {
			if (g->limit) {
				char *l = NULL;
				if (asprintf(&l, "%s:%u", s, g->limit) >= 0) {
					free(s);
					s = l;
				}
			}
			json_array_append_new(exc, json_string(s));
			free(s);
		}
	}
	for (size_t i = 0; i < ct.cfg.processes.n; i++) {
		const struct ct_glob *g = &ct.cfg.processes.items[i];
		char *s = NULL;

		if (asprintf(&s, "%s%s", g->exclude ? "!" : "", g->pattern) >= 0) {
			json_array_append_new(procs, json_string(s));
			free(s);
		}
	}
	return json_pack("{s:o,s:o,s:o,s:o,s:b,s:s,s:i,s:o}", "events", cats, "output", outs, "exceptions", exc,
			 "processes", procs, "messages", ct.cfg.messages, "ident",
			 ct.cfg.ident ? ct.cfg.ident : ct.program, "flush_ms", ct.cfg.flush_ms, "journal_ratelimit",
			 ct.cfg.journal_burst ? json_pack("{s:i,s:i}", "burst", ct.cfg.journal_burst, "interval_s",
							  ct.cfg.journal_interval_s)
					      : json_null());
}

typedef HRESULT (*get_runtime_info_fn)(com_object *, uint16_t *, uint32_t *, uint16_t *, uint16_t *,
				       uint16_t *, uint16_t *, ULONG, ULONG *, WCHAR *);

/* Runtime version, for runtime.init. */
static json_t *runtime_json(void)
{
	uint16_t inst = 0, major = 0, minor = 0, build = 0, qfe = 0;
	uint32_t type = 0;
	WCHAR buf[128];
	ULONG len = 0;
	char ver[64];

	if (FAILED(COM_CALL(ct.info, INFO_GetRuntimeInformation, get_runtime_info_fn, &inst, &type, &major, &minor,
			    &build, &qfe, ELEMENTSOF(buf), &len, buf)))
		return json_null();
	ct.runtime_major = major;
	snprintf(ver, sizeof(ver), "%u.%u.%u", major, minor, build);
	_cleanup_free_ char *s = len ? utf16_to_utf8((uint16_t *)buf, len - 1 < ELEMENTSOF(buf) ? len - 1 : 0) : NULL;
	return json_pack("{s:s,s:s?,s:i}", "version", ver, "build", s, "major", major);
}

/* Does this runtime handle exceptions the pre-.NET 9 way (no second pass
 * for an unhandled exception)? */
static bool legacy_exception_handling(void)
{
	static const char *const vars[] = { "DOTNET_LegacyExceptionHandling", "COMPlus_LegacyExceptionHandling" };

	if (ct.runtime_major && ct.runtime_major < 9)
		return true;
	if (ct.runtime_major != 9)
		return false;
	for (size_t i = 0; i < ELEMENTSOF(vars); i++) {
		const char *v = secure_getenv(vars[i]);

		if (v && strcmp(v, "1") == 0)
			return true;
	}
	return false;
}

/* exit() without Shutdown (Environment.Exit from some paths): end the
 * exiting thread's exception stories, flush. */
static void on_exit_flush(void)
{
	struct ct_thread *t;

	if (!atomic_load(&ct.active))
		return;
	t = ct_thread_get();
	if (ct_exceptions_exit && t) {
		/* the lock its callbacks hold: Shutdown on another thread may
		 * be ending this thread's stories (exit() from inside one of
		 * its callbacks already holds it) */
		bool locked = !t->in_callback && pthread_mutex_lock(&t->lock) == 0;

		ct_exceptions_exit(t);
		if (locked)
			pthread_mutex_unlock(&t->lock);
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

typedef HRESULT (*set_event_mask2_fn)(com_object *, DWORD, DWORD);
typedef ULONG (*release_fn)(com_object *);

/* Startup: read the configuration and start tracing, or step aside. */
HRESULT on_Initialize(struct ct_thread *t, com_object *info_unk)
{
	_cleanup_free_ char *cmd = NULL;
	size_t cmd_len = 0;
	uint32_t low = 0, high = 0;
	json_t *argv, *runtime;
	int r;

	json_object_seed(0);
	for (int v = 15; v >= 5 && !ct.info; v--)
		if (SUCCEEDED(COM_CALL(info_unk, INFO_QueryInterface, HRESULT (*)(com_object *, const GUID *, void **),
				       &IID_ICorProfilerInfo[v], (void **)&ct.info)) && ct.info)
			ct.info_version = v;
	if (!ct.info) {
		ct_say_once("info", "the runtime offers no ICorProfilerInfo5 or later; not tracing");
		return E_FAIL;
	}
	ct.pid = getpid();
	ct.start_ns = now_ns();
	cmd = read_cmdline(&cmd_len);
	ct.program = cmd ? program_name(cmd, cmd_len) : strdup("dotnet");
	if (!ct.program)
		goto fail;

	if (getauxval(AT_SECURE)) {
		/* setuid, setgid or file capabilities: the environment is the
		 * caller's, so nothing in it may choose where a privileged
		 * process writes, and the default file would be in the
		 * caller's working directory: do not trace (README) */
		if (!secure_excluded())
			ct_say_once("secure", "not tracing %s: it runs with raised privileges (setuid, setgid or file "
				    "capabilities), where CLRTRACE_* variables cannot be trusted", ct.program);
		free(ct.program);
		ct.program = NULL;
		COM_CALL(ct.info, INFO_Release, release_fn);
		ct.info = NULL;
		return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
	}
	r = config_load(&ct.cfg, env_get, config_warn, NULL);
	if (r < 0)
		goto fail;
	if (!globs_match(&ct.cfg.processes, ct.program, NULL)) {
		config_done(&ct.cfg);
		COM_CALL(ct.info, INFO_Release, release_fn);
		ct.info = NULL;
		return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
	}
	r = open_sinks();
	if (r < 0) {
		if (r == -ENOMEM) /* else each output has said why */
			ct_say_once("nosink", "out of memory opening the outputs; not tracing");
		goto fail;
	}
	runtime = runtime_json();
	ct.legacy_eh = legacy_exception_handling();
	if (json_is_object(runtime))
		json_object_set_new(runtime, "legacy_eh", json_boolean(ct.legacy_eh));
	for (int i = 0; i < _CAT_MAX; i++)
		if (ct_on(i)) {
			low |= ct_categories[i].mask_low;
			high |= ct_categories[i].mask_high;
		}
	/* a stack snapshot tells a native boundary from an unhandled
	 * exception (legacy EH: at every throw; new EH: only when a search
	 * found no catcher; see exm_input.verdict) */
	if (low & COR_PRF_MONITOR_EXCEPTIONS)
		low |= COR_PRF_ENABLE_STACK_SNAPSHOT;
	if (FAILED(COM_CALL(ct.info, INFO_SetEventMask2, set_event_mask2_fn, low, high))) {
		ct_say_once("mask", "the runtime refused the event mask 0x%x/0x%x; not tracing", low, high);
		ct_trace_close();
		json_decref(runtime);
		goto fail;
	}

	atomic_store(&ct.active, true);
	argv = json_array();
	for (const char *p = cmd; p && p < cmd + cmd_len; p += strlen(p) + 1)
		json_array_append_new(argv, json_string(p));
	ct_emit(t, EV_RUNTIME_INIT, PH_INSTANT, 0,
		json_pack("{s:o,s:o,s:s,s:s,s:o}", "runtime", runtime, "argv", argv, "program", ct.program,
			  "clrtrace", PACKAGE_VERSION, "config", config_json()));

	/* no SIGABRT handler: the runtime resets every handler before its own
	 * aborts, and what an abort leaves unwritten is in FILE.<pid>.pending */
	atexit(on_exit_flush);
	return S_OK;
fail:
	config_done(&ct.cfg);
	if (ct.info)
		COM_CALL(ct.info, INFO_Release, release_fn);
	ct.info = NULL;
	return E_FAIL;
}

/* The runtime is going away: totals, flush, close. */
HRESULT on_Shutdown(struct ct_thread *t)
{
	struct ct_totals tot;
	json_t *exc;

	if (!atomic_load(&ct.active) || atomic_exchange(&ct.shut_down, true))
		return S_OK;
	/* Environment.Exit inside a catch or finally: those stories end now */
	if (ct_exceptions_exit)
		ct_exceptions_exit(t);
	exc = ct_exceptions_totals ? ct_exceptions_totals() : json_object();
	ct_trace_totals(&tot);
	ct_emit(t, EV_RUNTIME_SHUTDOWN, PH_INSTANT, 0,
		json_pack("{s:{s:I,s:I,s:o}}", "totals", "records", (json_int_t)tot.records + 1, "dropped",
			  (json_int_t)tot.dropped, "exceptions", exc ? exc : json_object()));
	atomic_store(&ct.active, false);
	ct_trace_close();
	return S_OK;
}

/* Attach is not supported: say so instead of half-working. */
HRESULT on_InitializeForAttach(struct ct_thread *t, com_object *info_unk, void *data, uint32_t cb)
{
	ct_say_once("attach", "attaching to a running process is not supported yet");
	return E_NOTIMPL;
}

/* clrtrace is a main profiler, not a notification-only one. */
HRESULT on_LoadAsNotificationOnly(struct ct_thread *t, BOOL *notification_only)
{
	if (notification_only)
		*notification_only = 0;
	return S_OK;
}
