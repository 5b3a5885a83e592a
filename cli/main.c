/*
 * main.c — rocestat's entry point: parse the options, pick the mode.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

int main(int argc, char **argv)
{
	struct rs_cli_opts o;
	int rc = rs_cli_parse(argc, argv, &o);
	if (rc != 0) {
		rs_cli_free(&o);
		return rc < 0 ? RS_EXIT_OK : rc;
	}
	if (o.list_ifaces) {
		rc = rs_list_interfaces(&o, stdout);
		if (fflush(stdout) != 0 || ferror(stdout))
			rc = RS_EXIT_INPUT;
		rs_cli_free(&o);
		return rc;
	}

	struct rs_sink sink;
	if (o.walk) {
		sink = rs_walk_sink(stdout, &o);
	} else if (o.fields) {
		sink = rs_fields_sink(stdout, &o);
	} else if (o.iface || o.write_file) {
		/* Capture or extraction alone; the live view and the summary come
		 * with the analyzer. */
		sink = rs_null_sink();
	} else {
		fprintf(stderr, "rocestat: the summary report is not built yet; use --fields or --walk\n");
		rs_cli_free(&o);
		return RS_EXIT_USAGE;
	}
	if (o.write_file && strcmp(o.write_file, "-") == 0 && (o.walk || o.fields)) {
		fprintf(stderr, "rocestat: -w - and --%s would both write to standard output; pick one\n",
			o.walk ? "walk" : "fields");
		rs_cli_free(&o);
		return RS_EXIT_USAGE;
	}
	if (o.iface)
		rc = rs_run_live(&o, &sink);
	else if (o.write_file)
		rc = rs_run_extract(&o, &sink);
	else
		rc = rs_run_files(&o, &sink);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		perror("rocestat: writing the output");
		rc = RS_EXIT_INPUT;
	}
	rs_cli_free(&o);
	return rc;
}
