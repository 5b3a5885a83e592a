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
	} else if (o.iface) {
		/* Live: the live view on every tick, the full summary at the end,
		 * as `rocestat FILE` would print it for the frames captured. */
		struct rs_summary *s = rs_summary_new(&o);
		if (!s) {
			rs_cli_free(&o);
			return RS_EXIT_INPUT;
		}
		sink = rs_summary_sink(s);
		/* An output that cannot be opened (--timeline) stops us before the
		 * capture starts, not after the user's Ctrl-C. */
		rc = rs_summary_failed(s) ? RS_EXIT_INPUT : rs_run_live(&o, &sink);
		rc = rs_summary_finish(s, rc);
		rs_cli_free(&o);
		return rc;
	} else if (o.write_file) {
		sink = rs_null_sink(); /* -r ... -w: extraction prints nothing, like tcpdump */
	} else {
		rc = rs_run_summary(&o);
		rs_cli_free(&o);
		return rc;
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
