/* SPDX-License-Identifier: MIT */
/* clrtrace check (placeholder until issue 5 lands). */
#include "cli.h"

int cmd_check(int argc, char **argv)
{
	cli_error("check: not implemented yet");
	return 1;
}
