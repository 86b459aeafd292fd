/* SPDX-License-Identifier: MIT */
/* clrtrace export (placeholder until issue 5 lands). */
#include "cli.h"

int cmd_export(int argc, char **argv)
{
	cli_error("export: not implemented yet");
	return 1;
}
