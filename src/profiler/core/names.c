/* SPDX-License-Identifier: MIT */
/*
 * FunctionID / ClassID / ModuleID / AssemblyID → names, cached so that no
 * id is resolved twice.  Type and method names come from the module's
 * metadata read in place (module-md.h); IMetaDataImport only where there is
 * no image to read (a module emitted by Reflection.Emit) or the token is
 * not in it (methods added by a hot reload).
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profiler/abi/info.h"
#include "profiler/core/module-md.h"
#include "profiler/core/names.h"
#include "profiler/core/state.h"
#include "profiler/core/thread.h"
#include "common/u64map.h"
#include "common/utf16.h"
#include "common/util.h"

enum name_kind { NAME_FUNCTION, NAME_CLASS, NAME_MODULE, NAME_ASSEMBLY, _NAME_MAX };

/* One map per kind: id -> malloc'd name, never removed.  names_lock guards
 * them: lookups come from every thread that emits. */
static struct u64map maps[_NAME_MAX];
static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;

/* Keep NAME (owned by the map afterwards) for ID, or the name another
 * thread kept first; NULL on ENOMEM.  Caller holds names_lock. */
static const char *map_put(struct u64map *m, uint64_t id, char *name)
{
	void **slot = u64map_slot(m, id);

	if (!slot || *slot) {
		free(name);
		return slot ? *slot : NULL;
	}
	*slot = name;
	return name;
}

/* Metadata import for a module; NULL if it has none.  Only where the
 * metadata cannot be read in place: it makes the runtime's own lookups in
 * the module slower for the rest of the process (see module-md.c). */
static com_object *module_metadata(ModuleID mod)
{
	com_object *mdi = NULL;
	HRESULT hr = info_GetModuleMetaData(ct.info, mod, 0 /* ofRead */, &IID_IMetaDataImport, &mdi);

	return (hr == S_OK) ? mdi : NULL;
}

/* "Namespace.Outer+Inner" of a typedef, written into a malloc'd string. */
static char *typedef_name(com_object *mdi, mdTypeDef td, int depth)
{
	_cleanup_(utf16_name_done) struct utf16_name b = UTF16_NAME_INIT(b);
	DWORD flags = 0;
	mdToken ext = 0;
	mdTypeDef outer = 0;
	char *name, *full = NULL;
	HRESULT hr;

	do
		hr = mdi_GetTypeDefProps(mdi, td, b.v, b.cap, &b.len, &flags, &ext);
	while (utf16_name_retry(&b, com_name_answered(hr)));
	name = utf16_name_to_utf8(&b, SUCCEEDED(hr));
	if (!name)
		return NULL;
	if ((flags & tdVisibilityMask) >= tdNestedPublic && depth < 16 &&
	    SUCCEEDED(mdi_GetNestedClassProps(mdi, td, &outer)) && outer) {
		_cleanup_free_ char *o = typedef_name(mdi, outer, depth + 1);

		if (o && asprintf(&full, "%s+%s", o, name) >= 0) {
			free(name);
			return full;
		}
	}
	return name;
}

/* Resolve a function name from the runtime; malloc'd, or NULL. */
static char *resolve_function(FunctionID f)
{
	_cleanup_(utf16_name_done) struct utf16_name b = UTF16_NAME_INIT(b);
	ClassID cls = 0;
	ModuleID mod = 0;
	mdToken tok = 0;
	mdTypeDef td = 0;
	ULONG sig_len = 0, rva = 0;
	DWORD attr = 0, impl = 0;
	const uint8_t *sig = NULL;
	char *res = NULL;
	BOOL dyn = 0;
	HRESULT hr;

	if (ct.info_version >= 8 && SUCCEEDED(info_IsFunctionDynamic(ct.info, f, &dyn)) && dyn) {
		do
			hr = info_GetDynamicFunctionInfo(ct.info, f, &mod, &sig, &sig_len, b.cap, &b.len, b.v);
		while (utf16_name_retry(&b, com_name_answered(hr)));
		if (SUCCEEDED(hr) && b.len > 0)
			return utf16_name_to_utf8(&b, true);
		return strdup("(dynamic method)");
	}
	if (FAILED(info_GetFunctionInfo2(ct.info, f, 0, &cls, &mod, &tok, 0, NULL, NULL)))
		return NULL;
	struct md md;
	if (MD_TOKEN_TABLE(tok) == MD_METHODDEF && ct_module_md(mod, &md) == 0 &&
	    md_method_name(&md, MD_TOKEN_ROW(tok), &res) == 0)
		return res;
	com_object *mdi = module_metadata(mod);
	if (!mdi)
		return NULL;
	do
		hr = mdi_GetMethodProps(mdi, tok, &td, b.v, b.cap, &b.len, &attr, &sig, &sig_len, &rva, &impl);
	while (utf16_name_retry(&b, com_name_answered(hr)));
	if (SUCCEEDED(hr) && b.len > 0) {
		_cleanup_free_ char *m = utf16_name_to_utf8(&b, true);
		_cleanup_free_ char *type = td ? typedef_name(mdi, td, 0) : NULL;

		if (m && asprintf(&res, "%s%s%s", type ? type : "", type ? "." : "", m) < 0)
			res = NULL;
	}
	mdi_Release(mdi);
	return res;
}

/* Resolve a class name from the runtime; malloc'd, or NULL. */
static char *resolve_class(ClassID c)
{
	ModuleID mod = 0;
	mdTypeDef td = 0;
	ClassID parent = 0;
	uint32_t nargs = 0;
	char *res = NULL;
	HRESULT hr;

	hr = info_GetClassIDInfo2(ct.info, c, &mod, &td, &parent, 0, &nargs, NULL);
	if (hr == (HRESULT)0x80131365)
		return strdup("(array)");
	if (FAILED(hr) || !mod || !td)
		return NULL;
	struct md md;
	if (MD_TOKEN_TABLE(td) == MD_TYPEDEF && ct_module_md(mod, &md) == 0 && md_type_name(&md, MD_TOKEN_ROW(td), &res) == 0)
		return res;
	com_object *mdi = module_metadata(mod);
	if (!mdi)
		return NULL;
	res = typedef_name(mdi, td, 0);
	mdi_Release(mdi);
	return res;
}

/* A module's path (malloc'd, NULL when unknown or PATH is NULL) and its
 * assembly (0 when unknown), in one question to the runtime. */
AssemblyID ct_module_info(ModuleID m, char **path)
{
	_cleanup_(utf16_name_done) struct utf16_name b = UTF16_NAME_INIT(b);
	const uint8_t *base = NULL;
	AssemblyID a = 0;
	DWORD flags = 0;
	HRESULT hr;

	do
		hr = info_GetModuleInfo2(ct.info, m, &base, b.cap, &b.len, b.v, &a, &flags);
	while (utf16_name_retry(&b, com_name_answered(hr)));
	if (path)
		*path = utf16_name_to_utf8(&b, SUCCEEDED(hr));
	return SUCCEEDED(hr) ? a : 0;
}

/* Resolve a module's path; malloc'd, or NULL. */
static char *resolve_module(ModuleID m)
{
	char *path = NULL;

	(void)ct_module_info(m, &path);
	return path;
}

/* Resolve an assembly's simple name; malloc'd, or NULL. */
static char *resolve_assembly(AssemblyID a)
{
	_cleanup_(utf16_name_done) struct utf16_name b = UTF16_NAME_INIT(b);
	AppDomainID ad = 0;
	ModuleID mod = 0;
	HRESULT hr;

	do
		hr = info_GetAssemblyInfo(ct.info, a, b.cap, &b.len, b.v, &ad, &mod);
	while (utf16_name_retry(&b, com_name_answered(hr)));
	return utf16_name_to_utf8(&b, SUCCEEDED(hr));
}

static char *(*const resolvers[_NAME_MAX])(uint64_t) = {
	[NAME_FUNCTION] = resolve_function,
	[NAME_CLASS] = resolve_class,
	[NAME_MODULE] = resolve_module,
	[NAME_ASSEMBLY] = resolve_assembly,
};

static const char *name_lookup(enum name_kind k, uint64_t id);

/* Cached lookup; failures are not cached (the id may not be ready yet).
 * The thread's own cache first: the names are never freed, so a pointer
 * it kept stays good. */
static const char *name_of(enum name_kind k, uint64_t id)
{
	struct ct_thread *t = ct_thread_get();
	struct ct_name_hit *hit = NULL;
	const char *n;
	char *fresh;

	if (!id)
		return "?";
	if (t) {
		hit = &t->names[(size_t)((id >> 3) ^ (id >> 13) ^ (uint64_t)k) & (CT_NAME_CACHE - 1)];
		if (hit->id == id && hit->kind == (int)k && hit->name)
			return hit->name;
	}
	n = name_lookup(k, id);
	if (!n) {
		/* resolve outside the lock: it calls into the runtime */
		fresh = resolvers[k](id);
		if (!fresh)
			return "?";
		pthread_mutex_lock(&names_lock);
		n = map_put(&maps[k], id, fresh);
		pthread_mutex_unlock(&names_lock);
		if (!n)
			return "?";
	}
	if (hit)
		*hit = (struct ct_name_hit){ .id = id, .name = n, .kind = (int)k };
	return n;
}

/* The shared cache's name for ID, or NULL. */
static const char *name_lookup(enum name_kind k, uint64_t id)
{
	const char *n;

	pthread_mutex_lock(&names_lock);
	n = u64map_get(&maps[k], id);
	pthread_mutex_unlock(&names_lock);
	return n;
}

const char *ct_function_name(FunctionID f)
{
	return name_of(NAME_FUNCTION, f);
}

const char *ct_class_name(ClassID c)
{
	return name_of(NAME_CLASS, c);
}

const char *ct_module_path(ModuleID m)
{
	return name_of(NAME_MODULE, m);
}

const char *ct_assembly_name(AssemblyID a)
{
	return name_of(NAME_ASSEMBLY, a);
}

bool ct_module_is_corelib(ModuleID m)
{
	static const char corelib[] = "/System.Private.CoreLib.dll";
	const char *p = ct_module_path(m);
	size_t len = strlen(p);

	return len >= sizeof(corelib) - 1 && strcmp(p + len - (sizeof(corelib) - 1), corelib) == 0;
}
