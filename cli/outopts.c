/*
 * outopts.c — the options of the outputs for other programs: --expect and
 * its JUnit file, --metrics and --metrics-qps; what options.c takes and
 * checks of them, apart so that the option table stays readable there.
 */
#include <glib.h>
#include <stdio.h>

#include "cli/cli.h"
#include "report/expect.h"

bool rs_cli_take_expects(struct rs_cli_opts *o, char **expect, const char *junit, char *err, size_t len)
{
	for (char **x = expect; x && *x; x++)
		o->nexpect++;
	o->expects = o->nexpect ? g_new0(struct rs_expect, o->nexpect) : NULL;
	for (size_t i = 0; i < o->nexpect; i++)
		if (!rs_expect_parse(&o->expects[i], expect[i])) {
			snprintf(err, len, "--expect '%s': column %u: %s", expect[i], o->expects[i].err_col,
				 o->expects[i].err);
			return false;
		}
	o->expect_junit = junit ? g_strdup(junit) : NULL;
	if (o->expect_junit && !o->nexpect) {
		snprintf(err, len, "--expect-junit writes the results of --expect: give at least one --expect");
		return false;
	}
	return true;
}

bool rs_cli_check_outputs(const struct rs_cli_opts *o, char *err, size_t len)
{
	if (o->nexpect && (o->fields || o->walk || o->annotate || o->compare || o->ladder))
		snprintf(err, len, "--expect asserts over the summary's analysis, not with --%s",
			 o->fields ? "fields" : o->walk ? "walk" : o->annotate ? "annotate" : o->compare ? "compare" : "ladder");
	else if (o->metrics && !o->iface)
		snprintf(err, len, "--metrics serves the metrics of a live capture: give -i IF (for files: --format prometheus)");
	else if (o->metrics && (o->fields || o->walk))
		snprintf(err, len, "--metrics comes with the summary of the capture, not with --%s",
			 o->fields ? "fields" : "walk");
	else if (o->brief && o->full)
		snprintf(err, len, "--brief and --full are two layouts of the summary: give one");
	else if ((o->brief || o->full) && (o->fields || o->walk || o->annotate || o->compare || o->ladder || o->format))
		snprintf(err, len, "--%s lays out the text summary, not with --%s", o->brief ? "brief" : "full",
			 o->fields ? "fields" : o->walk ? "walk" : o->annotate ? "annotate" : o->compare ? "compare"
			 : o->ladder ? "ladder" : "format");
	else if (o->timeline_fill && !o->timeline)
		snprintf(err, len, "--timeline-fill adds rows to the CSV of --timeline: give --timeline FILE");
	else if (o->metrics_qps && !o->metrics && !(rs_report_formats[o->format].flags & RS_FMT_METRICS))
		snprintf(err, len, "--metrics-qps sizes the metrics: give --metrics or --format prometheus/openmetrics");
	else
		return true;
	return false;
}
