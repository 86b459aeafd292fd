/* SPDX-License-Identifier: MIT */
/*
 * FunctionID / ClassID / ModuleID / AssemblyID → names, through the info
 * and metadata interfaces, cached so that no id is resolved twice.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profiler/core/names.h"
#include "profiler/core/state.h"
#include "common/util.h"

enum name_kind { NAME_FUNCTION, NAME_CLASS, NAME_MODULE, NAME_ASSEMBLY, _NAME_MAX };

struct name_entry {
	uint64_t id;
	char *name;
};

struct name_map {
	struct name_entry *v;
	size_t cap, n;
};

static struct name_map maps[_NAME_MAX];
static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;

static inline size_t hash_id(uint64_t id)
{
	id ^= id >> 33;
	id *= 0xff51afd7ed558ccdULL;
	id ^= id >> 33;
	return (size_t)id;
}

/* Look up id; NULL if absent.  Caller holds names_lock. */
static const char *map_get(struct name_map *m, uint64_t id)
{
	if (!m->cap)
		return NULL;
	for (size_t i = hash_id(id) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (!m->v[i].name)
			return NULL;
		if (m->v[i].id == id)
			return m->v[i].name;
	}
}

/* Insert (id, name); name is owned by the map afterwards.  Caller locks. */
static const char *map_put(struct name_map *m, uint64_t id, char *name)
{
	if ((m->n + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256;
		struct name_entry *nv = calloc(cap, sizeof(*nv));

		if (!nv) {
			free(name);
			return NULL;
		}
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->v[i].name)
				continue;
			size_t j = hash_id(m->v[i].id) & (cap - 1);
			while (nv[j].name)
				j = (j + 1) & (cap - 1);
			nv[j] = m->v[i];
		}
		free(m->v);
		m->v = nv;
		m->cap = cap;
	}
	size_t i = hash_id(id) & (m->cap - 1);
	while (m->v[i].name) {
		if (m->v[i].id == id) {
			free(name);
			return m->v[i].name;
		}
		i = (i + 1) & (m->cap - 1);
	}
	m->v[i] = (struct name_entry){ id, name };
	m->n++;
	return name;
}

typedef HRESULT (*get_metadata_fn)(com_object *, ModuleID, DWORD, const GUID *, com_object **);
typedef HRESULT (*get_typedef_props_fn)(com_object *, mdTypeDef, WCHAR *, ULONG, ULONG *, DWORD *, mdToken *);
typedef HRESULT (*get_nested_fn)(com_object *, mdTypeDef, mdTypeDef *);
typedef HRESULT (*get_method_props_fn)(com_object *, mdMethodDef, mdTypeDef *, WCHAR *, ULONG, ULONG *,
				       DWORD *, const uint8_t **, ULONG *, ULONG *, DWORD *);
typedef ULONG (*release_fn)(com_object *);

/* Metadata import for a module; NULL if it has none. */
static com_object *module_metadata(ModuleID mod)
{
	com_object *mdi = NULL;
	HRESULT hr = COM_CALL(ct.info, INFO_GetModuleMetaData, get_metadata_fn, mod, 0 /* ofRead */,
			      &IID_IMetaDataImport, &mdi);

	return (hr == S_OK) ? mdi : NULL;
}

/* "Namespace.Outer+Inner" of a typedef, written into a malloc'd string. */
static char *typedef_name(com_object *mdi, mdTypeDef td, int depth)
{
	WCHAR buf[512];
	ULONG len = 0;
	DWORD flags = 0;
	mdToken ext = 0;
	mdTypeDef outer = 0;
	char *name, *full = NULL;

	if (FAILED(COM_CALL(mdi, MDI_GetTypeDefProps, get_typedef_props_fn, td, buf, ELEMENTSOF(buf), &len,
			    &flags, &ext)) || len == 0)
		return NULL;
	name = utf16_to_utf8((uint16_t *)buf, len - 1 < ELEMENTSOF(buf) ? len - 1 : ELEMENTSOF(buf) - 1);
	if (!name)
		return NULL;
	if ((flags & tdVisibilityMask) >= tdNestedPublic && depth < 16 &&
	    SUCCEEDED(COM_CALL(mdi, MDI_GetNestedClassProps, get_nested_fn, td, &outer)) && outer) {
		_cleanup_free_ char *o = typedef_name(mdi, outer, depth + 1);

		if (o && asprintf(&full, "%s+%s", o, name) >= 0) {
			free(name);
			return full;
		}
	}
	return name;
}

typedef HRESULT (*get_function_info2_fn)(com_object *, FunctionID, UINT_PTR, ClassID *, ModuleID *, mdToken *,
					 uint32_t, uint32_t *, ClassID *);
typedef HRESULT (*is_dynamic_fn)(com_object *, FunctionID, BOOL *);
typedef HRESULT (*get_dynamic_info_fn)(com_object *, FunctionID, ModuleID *, const uint8_t **, ULONG *, ULONG,
				       ULONG *, WCHAR *);

/* Resolve a function name from the runtime; malloc'd, or NULL. */
static char *resolve_function(FunctionID f)
{
	ClassID cls = 0;
	ModuleID mod = 0;
	mdToken tok = 0;
	mdTypeDef td = 0;
	WCHAR buf[512];
	ULONG len = 0, sig_len = 0, rva = 0;
	DWORD attr = 0, impl = 0;
	const uint8_t *sig = NULL;
	char *res = NULL;
	BOOL dyn = 0;

	if (ct.info_version >= 8 && SUCCEEDED(COM_CALL(ct.info, INFO_IsFunctionDynamic, is_dynamic_fn, f, &dyn)) &&
	    dyn) {
		if (SUCCEEDED(COM_CALL(ct.info, INFO_GetDynamicFunctionInfo, get_dynamic_info_fn, f, &mod, &sig,
				       &sig_len, ELEMENTSOF(buf), &len, buf)) && len > 0)
			return utf16_to_utf8((uint16_t *)buf, len - 1 < ELEMENTSOF(buf) ? len - 1 : ELEMENTSOF(buf) - 1);
		return strdup("(dynamic method)");
	}
	if (FAILED(COM_CALL(ct.info, INFO_GetFunctionInfo2, get_function_info2_fn, f, 0, &cls, &mod, &tok, 0,
			    NULL, NULL)))
		return NULL;
	com_object *mdi = module_metadata(mod);
	if (!mdi)
		return NULL;
	if (SUCCEEDED(COM_CALL(mdi, MDI_GetMethodProps, get_method_props_fn, tok, &td, buf, ELEMENTSOF(buf), &len,
			       &attr, &sig, &sig_len, &rva, &impl)) && len > 0) {
		_cleanup_free_ char *m = utf16_to_utf8((uint16_t *)buf,
						       len - 1 < ELEMENTSOF(buf) ? len - 1 : ELEMENTSOF(buf) - 1);
		_cleanup_free_ char *type = td ? typedef_name(mdi, td, 0) : NULL;

		if (m && asprintf(&res, "%s%s%s", type ? type : "", type ? "." : "", m) < 0)
			res = NULL;
	}
	COM_CALL(mdi, MDI_Release, release_fn);
	return res;
}

typedef HRESULT (*get_class_info2_fn)(com_object *, ClassID, ModuleID *, mdTypeDef *, ClassID *, uint32_t,
				      uint32_t *, ClassID *);

/* Resolve a class name from the runtime; malloc'd, or NULL. */
static char *resolve_class(ClassID c)
{
	ModuleID mod = 0;
	mdTypeDef td = 0;
	ClassID parent = 0;
	uint32_t nargs = 0;
	char *res;
	HRESULT hr;

	hr = COM_CALL(ct.info, INFO_GetClassIDInfo2, get_class_info2_fn, c, &mod, &td, &parent, 0, &nargs, NULL);
	if (hr == (HRESULT)0x80131365)
		return strdup("(array)");
	if (FAILED(hr) || !mod || !td)
		return NULL;
	com_object *mdi = module_metadata(mod);
	if (!mdi)
		return NULL;
	res = typedef_name(mdi, td, 0);
	COM_CALL(mdi, MDI_Release, release_fn);
	return res;
}

typedef HRESULT (*get_module_info2_fn)(com_object *, ModuleID, const uint8_t **, ULONG, ULONG *, WCHAR *,
				       AssemblyID *, DWORD *);

/* Resolve a module's path; malloc'd, or NULL. */
static char *resolve_module(ModuleID m)
{
	const uint8_t *base = NULL;
	ULONG len = 0;
	AssemblyID a = 0;
	DWORD flags = 0;
	WCHAR small[1024];
	HRESULT hr;

	hr = COM_CALL(ct.info, INFO_GetModuleInfo2, get_module_info2_fn, m, &base, ELEMENTSOF(small), &len, small,
		      &a, &flags);
	if (hr == ERROR_INSUFFICIENT_BUFFER_HR && len > 0 && len < 65536) {
		WCHAR *big = malloc(len * sizeof(WCHAR));
		char *res = NULL;

		if (big && SUCCEEDED(COM_CALL(ct.info, INFO_GetModuleInfo2, get_module_info2_fn, m, &base, len,
					      &len, big, &a, &flags)) && len > 0)
			res = utf16_to_utf8((uint16_t *)big, len - 1);
		free(big);
		return res;
	}
	if (FAILED(hr) || len == 0)
		return NULL;
	return utf16_to_utf8((uint16_t *)small, len - 1);
}

typedef HRESULT (*get_assembly_info_fn)(com_object *, AssemblyID, ULONG, ULONG *, WCHAR *, AppDomainID *,
					ModuleID *);

/* Resolve an assembly's simple name; malloc'd, or NULL. */
static char *resolve_assembly(AssemblyID a)
{
	WCHAR buf[512];
	ULONG len = 0;
	AppDomainID ad = 0;
	ModuleID mod = 0;

	if (FAILED(COM_CALL(ct.info, INFO_GetAssemblyInfo, get_assembly_info_fn, a, ELEMENTSOF(buf), &len, buf, &ad,
			    &mod)) || len == 0)
		return NULL;
	return utf16_to_utf8((uint16_t *)buf, len - 1 < ELEMENTSOF(buf) ? len - 1 : ELEMENTSOF(buf) - 1);
}

static char *(*const resolvers[_NAME_MAX])(uint64_t) = {
	[NAME_FUNCTION] = resolve_function,
	[NAME_CLASS] = resolve_class,
	[NAME_MODULE] = resolve_module,
	[NAME_ASSEMBLY] = resolve_assembly,
};

/* Cached lookup; failures are not cached (the id may not be ready yet). */
static const char *name_of(enum name_kind k, uint64_t id)
{
	const char *n;
	char *fresh;

	if (!id)
		return "?";
	pthread_mutex_lock(&names_lock);
	n = map_get(&maps[k], id);
	pthread_mutex_unlock(&names_lock);
	if (n)
		return n;
	/* resolve outside the lock: it calls into the runtime */
	fresh = resolvers[k](id);
	if (!fresh)
		return "?";
	pthread_mutex_lock(&names_lock);
	n = map_put(&maps[k], id, fresh);
	pthread_mutex_unlock(&names_lock);
	return n ? n : "?";
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
