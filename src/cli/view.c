/* SPDX-License-Identifier: MIT */
/* clrtrace view (placeholder until issue 5 lands). */
#include "cli.h"

int cmd_view(int argc, char **argv)
{
	cli_error("view: not implemented yet");
	return 1;
}
