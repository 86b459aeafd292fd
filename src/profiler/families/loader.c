/* SPDX-License-Identifier: MIT */
/* Loader events: appdomains, assemblies and modules as spans, module attach. */
#include "profiler/families/handlers.h"
#include "profiler/abi/info.h"
#include "common/utf16.h"

/* {id, name} of an appdomain (the name is known once it exists). */
static json_t *appdomain_json(AppDomainID id, bool with_name)
{
	_cleanup_(utf16_name_done) struct utf16_name b = UTF16_NAME_INIT(b);
	UINT_PTR pid = 0;
	json_t *o = json_pack("{s:o}", "id", ct_json_id(id));
	HRESULT hr;

	if (!with_name)
		return o;
	do
		hr = info_GetAppDomainInfo(ct.info, id, b.cap, &b.len, b.v, &pid);
	while (utf16_name_retry(&b, com_name_answered(hr)));
	if (SUCCEEDED(hr) && b.len > 0) {
		char *n = utf16_name_to_utf8(&b, true);

		json_object_set_new(o, "name", n ? json_string(n) : json_null());
		free(n);
	}
	return o;
}

/* {id, name, path} of an assembly. */
static json_t *assembly_json(AssemblyID id, bool with_name)
{
	json_t *o = json_pack("{s:o}", "id", ct_json_id(id));
	const char *name;

	if (!with_name)
		return o;
	name = ct_assembly_name(id);
	json_object_set_new(o, "name", json_string(name));
	{
		WCHAR buf[8]; /* the name is not wanted here, only its module */
		ULONG len = 0;
		AppDomainID ad = 0;
		ModuleID mod = 0;

		(void)info_GetAssemblyInfo(ct.info, id, ELEMENTSOF(buf), &len, buf, &ad, &mod);
		if (mod) {
			const char *path = ct_module_path(mod);

			if (path[0] == '/')
				json_object_set_new(o, "path", json_string(path));
		}
	}
	return o;
}

/* {id, path} of a module. */
static json_t *module_json(ModuleID id, bool with_path)
{
	json_t *o = json_pack("{s:o}", "id", ct_json_id(id));

	if (with_path)
		json_object_set_new(o, "path", json_string(ct_module_path(id)));
	return o;
}

/* The runtime loads an assembly level by level, each level done by whichever
 * thread waiting for the load takes its lock: the Finished callbacks of an
 * assembly or module load may come on another thread than the Started ones. */
LOAD_SPAN(AppDomainCreationStarted, AppDomainCreationFinished, EV_APPDOMAIN_CREATE, "appdomain", appdomain_json, false,
	  ct_emit_json)
LOAD_SPAN(AppDomainShutdownStarted, AppDomainShutdownFinished, EV_APPDOMAIN_SHUTDOWN, "appdomain", appdomain_json, true,
	  ct_emit_json)
LOAD_SPAN(AssemblyLoadStarted, AssemblyLoadFinished, EV_ASSEMBLY_LOAD, "assembly", assembly_json, false, ct_emit_handoff_json)
LOAD_SPAN(AssemblyUnloadStarted, AssemblyUnloadFinished, EV_ASSEMBLY_UNLOAD, "assembly", assembly_json, true, ct_emit_json)
LOAD_SPAN(ModuleLoadStarted, ModuleLoadFinished, EV_MODULE_LOAD, "module", module_json, false, ct_emit_handoff_json)
LOAD_SPAN(ModuleUnloadStarted, ModuleUnloadFinished, EV_MODULE_UNLOAD, "module", module_json, true, ct_emit_json)

HRESULT on_ModuleAttachedToAssembly(struct ct_thread *t, ModuleID mod, AssemblyID asm_id)
{
	if (ct_wants(EV_MODULE_ATTACH))
		ct_emit_json(t, EV_MODULE_ATTACH, PH_INSTANT, 0,
			json_pack("{s:o,s:o}", "module", module_json(mod, true), "assembly",
				  json_pack("{s:o,s:s}", "id", ct_json_id(asm_id), "name", ct_assembly_name(asm_id))));
	return S_OK;
}

const struct ct_family ct_family_loader = { .name = "loader" };
