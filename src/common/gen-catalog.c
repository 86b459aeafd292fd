/* SPDX-License-Identifier: MIT */
/*
 * Prints clrtrace.catalog, the systemd message catalog, from the event
 * table.  Built for and run on the build machine; knows only vocabulary.def.
 */
#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

struct entry {
	const char *name, *message_id, *description, *subject, *body;
};

static const struct entry entries[] = {
#define EV(id, nm, cat, kind, prio, msgid, desc, message, color, describe, stats, subj, text) \
	{ .name = nm, .message_id = msgid, .description = desc, .subject = subj, .body = text },
#include "common/vocabulary.def"
#undef EV
};

static const char header[] =
	"# SPDX-License-Identifier: MIT\n"
	"#\n"
	"# Message catalog of clrtrace, the exception and runtime-event tracer for .NET.\n"
	"# One entry per MESSAGE_ID in src/common/vocabulary.def (tests/journal-catalog.sh\n"
	"# checks that every event has exactly one).  Installed into the systemd catalog\n"
	"# directory; journalctl -x shows the text next to matching entries.\n";

static const char spans[] =
	"Spans have a begin and an end entry with the same CLRTRACE_SPAN; CLRTRACE_PARENT\n"
	"and CLRTRACE_DEPTH (absent at depth 0) give the nesting on thread @TID@.\n";

/* Print one catalog entry. */
static void print_entry(const struct entry *e)
{
	printf("\n-- %s\n", e->message_id);
	if (e->subject)
		printf("Subject: %s\n", e->subject);
	else
		printf("Subject: %s (%s)\n", e->description, e->name);
	printf("Defined-By: clrtrace\nDocumentation: man:clrtrace(1)\n\n");
	if (e->subject) {
		fputs(e->body, stdout);
		return;
	}
	/* the plain entry: which event, its own paragraph, the one on spans */
	printf("clrtrace recorded a %s event in process @CLRTRACE_PID@\n(@SYSLOG_IDENTIFIER@): %c%s.\n\n",
	       e->name, tolower((unsigned char)e->description[0]), e->description + 1);
	printf("%s\n%s", e->body, spans);
}

int main(void)
{
	fputs(header, stdout);
	for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++)
		print_entry(&entries[i]);
	return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
}
