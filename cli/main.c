/*
 * main.c — rocestat's entry point: parse the options, pick the mode.
 */
#include <stdio.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <string.h>

#include "cli/cli.h"

/* -r ... -w with a report asked for: the frames are written and analysed
 * in one pass, as live captures are (-i ... -w). */
static bool wants_report(const struct rs_cli_opts *o)
{
	return o->output || o->timeline || o->plot || o->ladder || o->format != RS_FORMAT_TEXT || o->nexpect;
}

static int extract_and_report(struct rs_cli_opts *o)
{
	struct rs_summary *s = rs_summary_new(o);
	if (!s)
		return RS_EXIT_INPUT;
	struct rs_sink sink = rs_summary_sink(s);
	int rc = rs_summary_failed(s) ? RS_EXIT_INPUT : rs_run_extract(o, &sink);
	return rs_summary_finish(s, rc);
}

static int run_sink(struct rs_cli_opts *o, const struct rs_sink *sink)
{
	return o->iface ? rs_run_live(o, sink) : o->write_file ? rs_run_extract(o, sink) : rs_run_files(o, sink);
}

/* What goes to standard output, flushed and checked at the end. */
static int stdout_checked(int rc)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		perror("rocestat: writing the output");
		rc = RS_EXIT_INPUT;
	}
	return rc;
}

/* The walkthrough's columns: --width (0: its default), else the
 * terminal's when it goes to one, else its default (100). */
static int walk_width(const struct rs_cli_opts *o, FILE *out)
{
	if (o->width >= 0)
		return o->width;
	struct winsize ws;
	if (out == stdout && isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col)
		return ws.ws_col > 80 ? ws.ws_col : 80;
	return 0;
}

/* --fields or --walk, to standard output or to -o FILE (written under a
 * temporary name and renamed when complete, as the reports are). */
static struct rs_sink view_sink(FILE *out, const struct rs_cli_opts *o)
{
	const struct rs_fields_opts fo = { .verdicts = o->verdicts, .ulp = o->ulp, .n_ulp = o->n_ulp, .qp = o->qp,
					   .conn = o->conn, .select = o->select };
	if (!o->walk)
		return rs_fields_sink(out, &fo);
	struct rs_sink s = rs_walk_sink_ulp(out, o->color != 0, o->qp, o->conn, o->ulp, o->n_ulp);
	rs_walk_set_width(&s, walk_width(o, out));
	return s;
}

/* --qp/--conn picked no frame to show (offline: a live capture may simply
 * not have seen it yet). */
static bool nothing_picked(const struct rs_cli_opts *o, const struct rs_sink *sink)
{
	if ((o->qp < 0 && o->conn < 0) || o->iface || o->write_file)
		return false;
	return (o->walk ? rs_walk_picked(sink) : rs_fields_picked(sink)) == 0;
}

static int frames_out(struct rs_cli_opts *o)
{
	char err[RS_ERRBUF_SIZE];
	struct rs_outfile of;
	if (!o->output) {
		struct rs_sink sink = view_sink(stdout, o);
		int rc = stdout_checked(run_sink(o, &sink));
		return rc == RS_EXIT_OK && nothing_picked(o, &sink) ? rs_summary_check_absent(o) : rc;
	}
	if (!rs_outfile_open(&of, o->output, err)) {
		rs_eprintf("rocestat: %s\n", err);
		return RS_EXIT_INPUT;
	}
	struct rs_sink sink = view_sink(of.fp, o);
	int rc = run_sink(o, &sink);
	if (rc == RS_EXIT_OK && nothing_picked(o, &sink))
		rc = rs_summary_check_absent(o);
	if (!rs_outfile_commit(&of, err)) {
		rs_eprintf("rocestat: %s\n", err);
		rc = RS_EXIT_INPUT;
	}
	return rc;
}

/* --annotate OUT.pcapng. */
static int annotate(struct rs_cli_opts *o)
{
	char err[RS_ERRBUF_SIZE];
	struct rs_sink sink = rs_annotate_sink(o->annotate);
	int rc = rs_run_files(o, &sink);
	if (!rs_annotate_close(&sink, err)) {
		rs_eprintf("rocestat: %s\n", err);
		rc = RS_EXIT_INPUT;
	}
	return rc;
}

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

	if (o.compare) {
		rc = stdout_checked(rs_run_compare(&o));
	} else if (o.annotate) {
		rc = annotate(&o);
	} else if (o.walk || o.fields) {
		rc = frames_out(&o);
	} else if (o.iface) {
		/* Live: the live view on every tick, the full summary at the end,
		 * as `rocestat FILE` would print it for the frames captured. */
		struct rs_summary *s = rs_summary_new(&o);
		if (!s) {
			rs_cli_free(&o);
			return RS_EXIT_INPUT;
		}
		struct rs_sink sink = rs_summary_sink(s);
		/* An output that cannot be opened (--timeline) stops us before the
		 * capture starts, not after the user's Ctrl-C. */
		rc = rs_summary_failed(s) ? RS_EXIT_INPUT : rs_run_live_hooked(&o, &sink, rs_summary_serve, s);
		rc = rs_summary_finish(s, rc);
	} else if (o.write_file && wants_report(&o)) {
		rc = extract_and_report(&o);
	} else if (o.write_file) {
		struct rs_sink sink = rs_null_sink(); /* -r ... -w: extraction prints nothing, like tcpdump */
		rc = stdout_checked(rs_run_extract(&o, &sink));
	} else {
		rc = rs_run_summary(&o);
	}
	rs_cli_free(&o);
	return rc;
}
