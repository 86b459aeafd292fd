/* SPDX-License-Identifier: MIT */
/*
 * Readable .NET method names (see dotnet-names.h).  The C# compiler's
 * names (Roslyn's "generated names") are <Method>K__suffix, K telling what
 * it made: d a state machine type, b a lambda, g a local function; <>c and
 * <>c__DisplayClassN_M are the classes that hold lambdas and their
 * captures.  A name is cut into parts at the '.' and '+' outside <…>, the
 * generated parts are said as the method they came from, the holders are
 * dropped, and everything else is copied as it was.
 */
#include <stdbool.h>
#include <string.h>

#include "common/dotnet-names.h"

#define MAX_NESTING 8

/* Length of the <…> that opens S (S[0] == '<'), counting nested ones;
 * 0 if it never closes. */
static size_t bracket_len(const char *s, size_t n)
{
	size_t depth = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i] == '<')
			depth++;
		else if (s[i] == '>' && depth && --depth == 0)
			return i + 1;
	}
	return 0;
}

/* The generic arity "`N" in S (length N), or NULL. */
static const char *arity(const char *s, size_t n)
{
	const char *t = memchr(s, '`', n);

	return t && t + 1 < s + n && t[1] >= '0' && t[1] <= '9' ? t : NULL;
}

/* Say the one part S (length N) into OUT; return its marks, and whether
 * it is a part to drop (*drop) or a state machine type (*machine). */
static unsigned say_part(const char *s, size_t n, unsigned depth, struct strbuf *out, bool *drop, bool *machine)
{
	size_t close, m;
	const char *rest, *end = s + n, *a, *bar;
	unsigned marks = 0;
	bool d, sm;

	*drop = *machine = false;
	/* the compiler nests a few levels (an async lambda in a local
	 * function); a trace file's name could nest without end */
	if (n < 2 || s[0] != '<' || depth >= MAX_NESTING)
		goto verbatim;
	/* the holders of lambdas: <>c, <>c__DisplayClass2_0, maybe `N */
	if (n >= 3 && memcmp(s, "<>c", 3) == 0 &&
	    (n == 3 || s[3] == '`' || (n > 17 && memcmp(s + 3, "__DisplayClass", 14) == 0))) {
		*drop = true;
		return 0;
	}
	close = bracket_len(s, n);
	if (close < 3 || close >= n)
		goto verbatim;
	rest = s + close; /* the kind letter */
	m = (size_t)(end - rest);
	switch (*rest) {
	case 'd': /* <M>d__N, <M>d (a lambda's), maybe `N */
		if (m > 1 && rest[1] != '_' && rest[1] != '`')
			goto verbatim;
		marks = DN_STATE_MACHINE | say_part(s + 1, close - 2, depth + 1, out, &d, &sm);
		if ((a = arity(rest, m)))
			strbuf_add(out, a, (size_t)(end - a));
		*machine = true;
		return marks;
	case 'b': /* <M>b__N_M: a lambda in M */
		if (m < 3 || rest[1] != '_' || rest[2] != '_')
			goto verbatim;
		return DN_LAMBDA | say_part(s + 1, close - 2, depth + 1, out, &d, &sm);
	case 'g': /* <M>g__Local|N_M: the local function Local in M */
		if (m < 4 || rest[1] != '_' || rest[2] != '_')
			goto verbatim;
		bar = memchr(rest + 3, '|', m - 3);
		marks = DN_LOCAL | say_part(s + 1, close - 2, depth + 1, out, &d, &sm);
		strbuf_puts(out, ".");
		strbuf_add(out, rest + 3, (size_t)((bar ? bar : end) - (rest + 3)));
		return marks;
	default:
		break;
	}
verbatim:
	strbuf_add(out, s, n);
	return 0;
}

/* Whether CALLER is the async machinery that runs a state machine: the
 * method builders, the state machine box, the execution context, or the
 * async method itself (its kickoff stub, Start inlined into it). */
static bool async_caller(const char *caller, const char *kickoff, size_t kickoff_len)
{
	static const char *const prefixes[] = {
		"System.Runtime.CompilerServices.Async",
		"System.Runtime.CompilerServices.PoolingAsync",
		"System.Threading.ExecutionContext.Run",
		"System.Threading.Tasks.AwaitTaskContinuation",
		"System.Threading.Tasks.Task.RunContinuations",
	};

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(caller, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	if (!kickoff_len)
		return false;
	/* the stub is said like its state machine: compare the readable forms */
	struct strbuf c = { 0 };
	bool same;

	dotnet_name(caller, NULL, &c);
	same = c.s && c.len == kickoff_len && memcmp(c.s, kickoff, kickoff_len) == 0;
	strbuf_free(&c);
	return same;
}

/* What a state machine's method other than MoveNext tells: async
 * iterators implement IAsyncEnumerator, IAsyncDisposable and
 * IValueTaskSource, iterators IEnumerator and IDisposable; 0 if neither. */
static unsigned machine_method(const char *method)
{
	static const char *const async_words[] = { "IValueTaskSource", "IAsyncEnumera", "IAsyncDisposable",
						    ".MoveNextAsync", ".DisposeAsync" };
	static const char *const iterator_words[] = { "System.Collections.", "System.IDisposable.", ".get_Current",
						       ".GetEnumerator", ".Reset" };

	for (size_t i = 0; i < sizeof(async_words) / sizeof(async_words[0]); i++)
		if (strstr(method, async_words[i]))
			return DN_ASYNC;
	for (size_t i = 0; i < sizeof(iterator_words) / sizeof(iterator_words[0]); i++)
		if (strstr(method, iterator_words[i]))
			return DN_ITERATOR;
	return 0;
}

/* The readable name (see dotnet-names.h). */
unsigned dotnet_name(const char *raw, const char *caller, struct strbuf *out)
{
	size_t start = out->len, n = strlen(raw), i = 0;
	unsigned marks = 0;
	bool after_machine = false, move_next = false;
	const char *tail = raw;

	while (i < n) {
		char sep = 0;
		size_t j, len, before;
		bool drop, machine;
		unsigned m;

		if (raw[i] == '.' || raw[i] == '+')
			sep = raw[i++];
		/* the part runs to the next '.' or '+' outside <…> */
		for (j = i; j < n && raw[j] != '.' && raw[j] != '+'; j++)
			if (raw[j] == '<') {
				size_t b = bracket_len(raw + j, n - j);

				if (!b)
					break;
				j += b - 1;
			}
		if (j < n && raw[j] == '<')
			j = n; /* an unclosed '<': the rest is one part */
		len = j - i;
		/* a state machine's MoveNext is the method itself */
		if (after_machine && sep == '.' && len == 8 && memcmp(raw + i, "MoveNext", 8) == 0) {
			i = j;
			after_machine = false;
			move_next = true;
			continue;
		}
		before = out->len;
		if (sep)
			strbuf_add(out, &sep, 1);
		m = say_part(raw + i, len, 0, out, &drop, &machine);
		if (drop) {
			out->len = before;
			if (out->s)
				out->s[before] = '\0';
		} else if (m && sep == '+' && !out->oom && out->len > before) {
			out->s[before] = '.'; /* a nested type said as a method */
		}
		marks |= m;
		after_machine = machine;
		if (machine)
			tail = raw + j; /* the state machine's method */
		i = j;
		/* a separator at the very end stays */
		if (i == n - 1 && (raw[i] == '.' || raw[i] == '+')) {
			strbuf_add(out, raw + i, 1);
			i = n;
		}
	}
	if ((marks & DN_STATE_MACHINE) && (marks & DN_LAMBDA)) {
		/* a C# lambda cannot be an iterator (the <…>b__ names are C#'s) */
		marks &= ~(unsigned)DN_STATE_MACHINE;
		marks |= DN_ASYNC;
	} else if ((marks & DN_STATE_MACHINE) && !move_next) {
		/* another method of the state machine: its interfaces say */
		unsigned kind = machine_method(tail);

		if (kind) {
			marks &= ~(unsigned)DN_STATE_MACHINE;
			marks |= kind;
		}
	} else if ((marks & DN_STATE_MACHINE) && caller && *caller && strcmp(caller, "[native]") != 0 &&
		   strcmp(caller, "?") != 0) {
		const char *kick = out->s ? out->s + start : "";

		marks &= ~(unsigned)DN_STATE_MACHINE;
		marks |= async_caller(caller, kick, out->len - start) ? DN_ASYNC : DN_ITERATOR;
	}
	return marks;
}

/* The marks in words (see dotnet-names.h). */
void dotnet_marks(unsigned marks, struct strbuf *out)
{
	static const struct {
		unsigned bit;
		const char *word;
	} words[] = {
		{ DN_ASYNC, "async" },
		{ DN_ITERATOR, "iterator" },
		{ DN_STATE_MACHINE, "async or iterator" },
		{ DN_LOCAL, "local function" },
		{ DN_LAMBDA, "lambda" },
	};
	bool any = false;

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (marks & words[i].bit) {
			strbuf_puts(out, any ? " " : " [");
			strbuf_puts(out, words[i].word);
			any = true;
		}
	if (any)
		strbuf_puts(out, "]");
}

/* The name with its marks (see dotnet-names.h). */
const char *dotnet_display(const char *raw, const char *caller, struct strbuf *out)
{
	strbuf_reset(out);
	dotnet_marks(dotnet_name(raw, caller, out), out);
	return out->oom || !out->s ? raw : out->s;
}
