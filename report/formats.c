/*
 * formats.c — the summary's formats, one row each: the name --format takes,
 * its writer, what it needs of the options and a line for --help. The
 * option parser, its error message, --help and the dispatch read this
 * table; a new format is its writer's file and a row here (its place in the
 * table is its number, enum rs_format in cli/cli.h).
 */
#include <string.h>

#include "report/report.h"

const struct rs_report_format rs_report_formats[] = {
	{ "text", rs_report_text, 0, "the summary as text" },
	{ "json", rs_report_json, 0, "one JSON document" },
	{ "json-compact", rs_report_json, RS_FMT_COMPACT, "the same on one line" },
	{ "ndjson", rs_report_ndjson, RS_FMT_HOST, "one object a line" },
	{ "prometheus", rs_report_prometheus, RS_FMT_METRICS, "Prometheus' text exposition format" },
	{ "openmetrics", rs_report_openmetrics, RS_FMT_METRICS, "OpenMetrics 1.0" },
	{ NULL, NULL, 0, NULL },
};

int rs_report_format_find(const char *name)
{
	for (int i = 0; rs_report_formats[i].name; i++)
		if (strcmp(rs_report_formats[i].name, name) == 0)
			return i;
	return -1;
}

void rs_report_format_list(char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = '\0';
	for (int i = 0; rs_report_formats[i].name && n < len; i++) {
		const char *sep = !i ? "" : rs_report_formats[i + 1].name ? ", " : " or ";
		int k = snprintf(buf + n, len - n, "%s%s", sep, rs_report_formats[i].name);
		if (k < 0)
			break;
		n += (size_t)k;
	}
}
