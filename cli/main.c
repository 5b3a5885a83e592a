/*
 * main.c — rocestat's entry point: parse the options, pick the mode.
 */
#include <stdio.h>

#include "cli/cli.h"

int main(int argc, char **argv)
{
	struct rs_cli_opts o;
	int rc = rs_cli_parse(argc, argv, &o);
	if (rc != 0) {
		rs_cli_free(&o);
		return rc < 0 ? RS_EXIT_OK : rc;
	}

	struct rs_sink sink;
	if (o.walk) {
		sink = rs_walk_sink(stdout, &o);
	} else if (o.fields) {
		sink = rs_fields_sink(stdout, &o);
	} else {
		rc = rs_run_summary(&o);
		rs_cli_free(&o);
		return rc;
	}
	rc = rs_run_files(&o, &sink);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		perror("rocestat: writing the output");
		rc = RS_EXIT_INPUT;
	}
	rs_cli_free(&o);
	return rc;
}
