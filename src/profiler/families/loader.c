/* SPDX-License-Identifier: MIT */
/* Loader events: appdomains, assemblies and modules as spans, module attach. */
#include "profiler/families/handlers.h"
#include "profiler/abi/info.h"
#include "common/utf16.h"
#include "profiler/families/startup.h"

/* {id, name} of an appdomain (the name is known once it exists). */
static void appdomain_fields(struct jw_fields *o, UINT_PTR id, bool with_name, char **keep)
{
	_cleanup_(utf16_name_done) struct utf16_name b = UTF16_NAME_INIT(b);
	UINT_PTR pid = 0;
	HRESULT hr;

	jwf_hex(o, "id", id);
	if (!with_name)
		return;
	do
		hr = info_GetAppDomainInfo(ct.info, id, b.cap, &b.len, b.v, &pid);
	while (utf16_name_retry(&b, com_name_answered(hr)));
	if (SUCCEEDED(hr) && b.len > 0) {
		*keep = utf16_name_to_utf8(&b, true);
		jwf_str(o, "name", *keep);
	}
}

/* {id, name, path} of an assembly. */
static void assembly_fields(struct jw_fields *o, UINT_PTR id, bool with_name, char **keep)
{
	WCHAR buf[8]; /* the name is not wanted here, only its module */
	ULONG len = 0;
	AppDomainID ad = 0;
	ModuleID mod = 0;

	jwf_hex(o, "id", id);
	if (!with_name)
		return;
	jwf_str(o, "name", ct_assembly_name(id));
	(void)info_GetAssemblyInfo(ct.info, id, ELEMENTSOF(buf), &len, buf, &ad, &mod);
	if (mod) {
		const char *path = ct_module_path(mod);

		if (path[0] == '/')
			jwf_str(o, "path", path);
	}
}

/* {id, path} of a module. */
static void module_fields(struct jw_fields *o, UINT_PTR id, bool with_path, char **keep)
{
	jwf_hex(o, "id", id);
	if (with_path)
		jwf_str(o, "path", ct_module_path(id));
}

/* The runtime loads an assembly level by level, each level done by whichever
 * thread waiting for the load takes its lock: the Finished callbacks of an
 * assembly or module load may come on another thread than the Started ones. */
LOAD_SPAN(AppDomainCreationStarted, AppDomainCreationFinished, EV_APPDOMAIN_CREATE, "appdomain", appdomain_fields, false,
	  ct_emit)
LOAD_SPAN(AppDomainShutdownStarted, AppDomainShutdownFinished, EV_APPDOMAIN_SHUTDOWN, "appdomain", appdomain_fields, true,
	  ct_emit)
LOAD_SPAN(AssemblyLoadStarted, AssemblyLoadFinished, EV_ASSEMBLY_LOAD, "assembly", assembly_fields, false, ct_emit_handoff)
LOAD_SPAN(AssemblyUnloadStarted, AssemblyUnloadFinished, EV_ASSEMBLY_UNLOAD, "assembly", assembly_fields, true, ct_emit)
HRESULT on_ModuleLoadSpanFinished(struct ct_thread *t, UINT_PTR id, HRESULT hr);
LOAD_SPAN(ModuleLoadStarted, ModuleLoadSpanFinished, EV_MODULE_LOAD, "module", module_fields, false, ct_emit_handoff)

/* The span's end, and the module's ReadyToRun status (category startup). */
HRESULT on_ModuleLoadFinished(struct ct_thread *t, ModuleID id, HRESULT hr)
{
	on_ModuleLoadSpanFinished(t, id, hr);
	ct_startup_module(t, id, hr);
	return S_OK;
}
LOAD_SPAN(ModuleUnloadStarted, ModuleUnloadFinished, EV_MODULE_UNLOAD, "module", module_fields, true, ct_emit)

HRESULT on_ModuleAttachedToAssembly(struct ct_thread *t, ModuleID mod, AssemblyID asm_id)
{
	JW_FIELDS(m, 2);
	JW_FIELDS(a, 2);
	JW_FIELDS(f, 2);

	if (!ct_wants(EV_MODULE_ATTACH))
		return S_OK;
	module_fields(&m, mod, true, NULL);
	jwf_hex(&a, "id", asm_id);
	jwf_str(&a, "name", ct_assembly_name(asm_id));
	jwf_obj(&f, "module", &m);
	jwf_obj(&f, "assembly", &a);
	ct_emit(t, EV_MODULE_ATTACH, PH_INSTANT, 0, &f);
	return S_OK;
}

const struct ct_family ct_family_loader = { .name = "loader" };
