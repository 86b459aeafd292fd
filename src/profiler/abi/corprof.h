/* SPDX-License-Identifier: MIT */
/*
 * The CoreCLR profiling ABI as plain C for x86-64/arm64 Linux.  Only what
 * clrtrace uses (the methods it calls: info.def); the numbers come from
 * corprof.idl, cor.h and pal_mstypes.h of dotnet/runtime (src/coreclr/inc, src/coreclr/pal/inc).  The PAL makes ULONG, DWORD,
 * HRESULT and BOOL 32-bit and WCHAR 16-bit, and STDMETHODCALLTYPE empty, so
 * every method is a plain SysV function taking the object first.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <uchar.h>

typedef int32_t HRESULT;
typedef uint32_t ULONG;
typedef uint32_t DWORD;
typedef int32_t BOOL;
typedef char16_t WCHAR;
typedef uintptr_t UINT_PTR;

typedef UINT_PTR AppDomainID, AssemblyID, ModuleID, ClassID, ThreadID,
	FunctionID, ObjectID, GCHandleID, ReJITID;
typedef uint32_t mdToken, mdTypeDef, mdMethodDef, mdFieldDef;

typedef struct {
	uint32_t Data1;
	uint16_t Data2;
	uint16_t Data3;
	uint8_t Data4[8];
} GUID;
/* A GUID's initializer, {a, b, c, {d0..d7}}. */
#define CT_GUID(a, b, c, d0, d1, d2, d3, d4, d5, d6, d7) \
	{ a, b, c, { d0, d1, d2, d3, d4, d5, d6, d7 } }

typedef struct {
	mdFieldDef ridOfField;
	ULONG ulOffset;
} COR_FIELD_OFFSET;

typedef struct {
	uint32_t clauseType;
	UINT_PTR programCounter;
	UINT_PTR framePointer;
	UINT_PTR shadowStackPointer;
} COR_PRF_EX_CLAUSE_INFO;

typedef struct {
	UINT_PTR startAddress;
	size_t size;
} COR_PRF_CODE_INFO;

typedef struct {
	uint32_t ilOffset;
	uint32_t nativeStartOffset;
	uint32_t nativeEndOffset;
} COR_DEBUG_IL_TO_NATIVE_MAP;

/* DoStackSnapshot's callback: one frame (FunctionID 0: native code). */
typedef HRESULT (*StackSnapshotCallback)(FunctionID f, UINT_PTR ip, UINT_PTR frame_info, uint32_t context_size,
					 uint8_t *context, void *data);

/* A COM object as C sees it: a pointer to its table of methods. */
typedef struct com_object {
	void *const *vtbl;
} com_object;

#define S_OK 0
#define E_NOTIMPL ((HRESULT)0x80004001)
#define E_NOINTERFACE ((HRESULT)0x80004002)
#define E_POINTER ((HRESULT)0x80004003)
#define E_FAIL ((HRESULT)0x80004005)
#define E_OUTOFMEMORY ((HRESULT)0x8007000E)
#define E_INVALIDARG ((HRESULT)0x80070057)
#define CLASS_E_NOAGGREGATION ((HRESULT)0x80040110)
#define CLASS_E_CLASSNOTAVAILABLE ((HRESULT)0x80040111)
#define CORPROF_E_PROFILER_CANCEL_ACTIVATION ((HRESULT)0x80131375)
#define CORPROF_E_PROFILER_ALREADY_ACTIVE ((HRESULT)0x8013136A)
#define CORPROF_E_PROFILER_DETACHING ((HRESULT)0x80131367)
#define CORPROF_E_PROFILER_NOT_YET_INITIALIZED ((HRESULT)0x80131373)
#define ERROR_INSUFFICIENT_BUFFER_HR ((HRESULT)0x8007007A)
#define FAILED(hr) ((HRESULT)(hr) < 0)
#define SUCCEEDED(hr) ((HRESULT)(hr) >= 0)

/* COR_PRF_MONITOR (SetEventMask2 low word) */
#define COR_PRF_MONITOR_CLASS_LOADS 0x00000002u
#define COR_PRF_MONITOR_MODULE_LOADS 0x00000004u
#define COR_PRF_MONITOR_ASSEMBLY_LOADS 0x00000008u
#define COR_PRF_MONITOR_APPDOMAIN_LOADS 0x00000010u
#define COR_PRF_MONITOR_JIT_COMPILATION 0x00000020u
#define COR_PRF_MONITOR_EXCEPTIONS 0x00000040u
#define COR_PRF_MONITOR_THREADS 0x00000200u
#define COR_PRF_MONITOR_CODE_TRANSITIONS 0x00000800u
#define COR_PRF_MONITOR_SUSPENDS 0x00010000u
/* what a profiler may ask for after attach (corprof.idl) */
#define COR_PRF_ALLOWABLE_AFTER_ATTACH 0x106502FEu
#define COR_PRF_HIGH_ALLOWABLE_AFTER_ATTACH 0x000000F6u
/* what a notification profiler may ask for (corprof.idl) */
#define COR_PRF_ALLOWABLE_NOTIFICATION_PROFILER 0xB1E32B7Fu
#define COR_PRF_HIGH_ALLOWABLE_NOTIFICATION_PROFILER 0x000000FEu
#define COR_PRF_ENABLE_STACK_SNAPSHOT 0x10000000u
/* COR_PRF_HIGH_MONITOR (high word) */
#define COR_PRF_HIGH_BASIC_GC 0x00000010u
#define COR_PRF_HIGH_MONITOR_EVENT_PIPE 0x00000080u

/* EventPipe, as ICorProfilerInfo12 and ICorProfilerCallback10 see it */
typedef UINT_PTR EVENTPIPE_PROVIDER;
typedef UINT_PTR EVENTPIPE_EVENT;
typedef uint64_t EVENTPIPE_SESSION;
#define COR_PRF_EVENTPIPE_INFORMATIONAL 4u
#define COR_PRF_EVENTPIPE_VERBOSE 5u

typedef struct {
	const WCHAR *providerName;
	uint64_t keywords;
	uint32_t loggingLevel;
	const WCHAR *filterData;
} COR_PRF_EVENTPIPE_PROVIDER_CONFIG;

typedef struct {
	uint32_t type;
	uint32_t elementType;
	const WCHAR *name;
} COR_PRF_EVENTPIPE_PARAM_DESC;

typedef struct {
	uint64_t ptr;
	uint32_t size;
	uint32_t reserved;
} COR_PRF_EVENT_DATA;

/* COR_PRF_SUSPEND_REASON */
enum {
	COR_PRF_SUSPEND_OTHER = 0,
	COR_PRF_SUSPEND_FOR_GC = 1,
	COR_PRF_SUSPEND_FOR_APPDOMAIN_SHUTDOWN = 2,
	COR_PRF_SUSPEND_FOR_CODE_PITCHING = 3,
	COR_PRF_SUSPEND_FOR_SHUTDOWN = 4,
	COR_PRF_SUSPEND_FOR_INPROC_DEBUGGER = 6,
	COR_PRF_SUSPEND_FOR_GC_PREP = 7,
	COR_PRF_SUSPEND_FOR_REJIT = 8,
	COR_PRF_SUSPEND_FOR_PROFILER = 9,
};

#define tdVisibilityMask 0x7u
#define tdNestedPublic 0x2u

extern const GUID IID_IUnknown;
extern const GUID IID_IClassFactory;
extern const GUID IID_ICorProfilerCallback[12]; /* [1]..[11]; [0] unused */
extern const GUID IID_ICorProfilerInfo[16];     /* [1]..[15]; [0] unused */
extern const GUID IID_IMetaDataImport;
extern const GUID CLSID_clrtrace, CLSID_clrtrace_notification;
extern bool ct_notification_clsid; /* the runtime asked for the second */
/* DllGetClassObject for the detach CLSID calls FN and answers what it
 * returns (a failure: no class is ever made for it). */
void ct_com_set_detach_handler(HRESULT (*fn)(void));

int guid_equal(const GUID *a, const GUID *b);
