/*
 * options.c — command-line parsing with GLib's GOption, in tcpdump's habits:
 * `-r FILE` (repeatable), `-i IFACE`, `-w FILE`, `-c N`, `-s LEN`, `-n`,
 * `-D`, `-V`, and a BPF filter as the trailing arguments.
 *
 * `rocestat FILE...` works too: without -r or -i, leading arguments that
 * name existing files are read as captures and whatever follows is the
 * filter. `--` ends the options: the words after it are told apart the
 * same way, so `rocestat -- -V.pcap` reads the file "-V.pcap"; a second
 * `--` ends the files.
 */
#include <errno.h>
#include <glib.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/optvalues.h"
#include "report/expect.h"


/* Sets errno when it is not: ENOENT and the like from stat(), EISDIR for
 * a directory, EINVAL for anything else that cannot hold a capture. */
static bool exists_as_capture(const char *arg)
{
	struct stat st;
	errno = 0;
	if (stat(arg, &st) != 0)
		return false;
	if (S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))
		return true;
	errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
	return false;
}

static bool looks_like_path(const char *arg)
{
	return strchr(arg, '/') || g_str_has_suffix(arg, ".pcap") || g_str_has_suffix(arg, ".pcapng") ||
	       g_str_has_suffix(arg, ".cap") || g_str_has_suffix(arg, ".erf");
}

G_GNUC_PRINTF(1, 2) static int fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	rs_eprintf("rocestat: %s\n", msg);
	g_free(msg);
	return RS_EXIT_USAGE;
}

/* NOT_GIVEN: -c 0 and -W 0 are refused, as tcpdump refuses them, so "not
 * given" needs a value of its own. */
enum { NOT_GIVEN = -2147483647 - 1 };

/*
 * Without --max-flows, the cap keeps a flood (a hostile capture, or a huge
 * one) within RS_MEM_SHARE of physical memory: a half-flow of any kind
 * takes at most ~1.2 KiB with its hash entry and sampled state (IPv6
 * addresses the most), a CM connection ~1.4 KiB and counts as two
 * (the cap keeps N/2); RS_FLOW_BYTES leaves a margin above both.
 */
#define RS_MEM_SHARE 32
#define RS_FLOW_BYTES 1536
#define RS_MIN_DEFAULT_FLOWS 10000

static uint64_t default_max_flows(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	if (pages <= 0 || size <= 0)
		return 524288; /* as on a 24 GiB machine */
	uint64_t n = (uint64_t)pages * (uint64_t)size / RS_MEM_SHARE / RS_FLOW_BYTES;
	return n < RS_MIN_DEFAULT_FLOWS ? RS_MIN_DEFAULT_FLOWS : n;
}

/* What the command line gave, before it is checked and put into the options. */
struct given {
	gchar **read_files;
	gchar **select;     /* -e */
	gchar **expect;     /* --expect */
	gchar *expect_junit;
	gboolean expect_names;
	gchar *color, *format, *metrics;
	gint64 count, max_flows, metrics_qps;
	gint snaplen, buffer_kib, rotate_seconds, rotate_files, jobs, top, width;
	gdouble refresh;
	gboolean version, fields, verdicts, walk, ladder, no_resolve, quiet, compare;
	gboolean list, all, help, bits;
	/* The options that take a value (for rs_cli_split_values). */
	GString *short_with_value;
	GPtrArray *long_with_value;
};

static void note_values(struct given *gv, const GOptionEntry *e)
{
	for (; e->long_name; e++) {
		if (e->arg == G_OPTION_ARG_NONE || (e->flags & (G_OPTION_FLAG_NO_ARG | G_OPTION_FLAG_OPTIONAL_ARG)))
			continue;
		if (e->short_name)
			g_string_append_c(gv->short_with_value, e->short_name);
		g_ptr_array_add(gv->long_with_value, (gpointer)e->long_name);
	}
}

/* The option table, pointing into gv and o. */
static GOptionContext *option_context(struct given *gv, struct rs_cli_opts *o)
{
	/* The formats' list, from their table. */
	static char format_help[512];
	int n = snprintf(format_help, sizeof format_help, "Summary format:");
	for (int i = 0; rs_report_formats[i].name && n > 0 && (size_t)n < sizeof format_help; i++)
		n += snprintf(format_help + n, sizeof format_help - (size_t)n, "%s %s (%s)", i ? "," : "",
			      rs_report_formats[i].name, rs_report_formats[i].help);
	GOptionEntry input[] = {
		{ "read", 'r', 0, G_OPTION_ARG_FILENAME_ARRAY, &gv->read_files, "Read frames from FILE (repeatable; pcap or pcapng)", "FILE" },
		{ "interface", 'i', 0, G_OPTION_ARG_STRING, &o->iface, "Capture live on IFACE (a netdev, or an RDMA device such as rxe0)", "IFACE" },
		{ "list-interfaces", 'D', 0, G_OPTION_ARG_NONE, &gv->list, "List capture interfaces and the RDMA devices bound to them", NULL },
		{ "all", 0, 0, G_OPTION_ARG_NONE, &gv->all, "Live: capture every frame, not only RoCE", NULL },
		{ "snaplen", 's', 0, G_OPTION_ARG_INT, &gv->snaplen, "Live: keep at most LEN bytes of each frame (128 keeps the headers)", "LEN" },
		{ "buffer-size", 'B', 0, G_OPTION_ARG_INT, &gv->buffer_kib, "Live: kernel capture buffer in KiB", "KIB" },
		{ "relinquish-privileges", 'Z', 0, G_OPTION_ARG_STRING, &o->drop_user, "Live: drop to USER once the device is open", "USER" },
		{ "sysfs", 0, 0, G_OPTION_ARG_FILENAME, &o->sysfs_root, "Where sysfs is mounted (default /sys)", "DIR" },
		{ "roce-port", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer)rs_opt_port, "Also decode UDP destination PORT as RoCE v2 (repeatable)", "PORT" },
		{ "ulp", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer)rs_opt_ulp, "Name the protocol of CM connections to RDMA CM port PORT, or with qp:QPN=NAME of QP QPN with or without CM (repeatable; a NAME starting nvme or nvmf decodes NVMe-oF)", "PORT=NAME" },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	GOptionEntry select[] = {
		{ "count", 'c', 0, G_OPTION_ARG_INT64, &gv->count, "Stop after N frames that pass the filter", "N" },
		{ "frames", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer)rs_opt_frames, "Only frames N to M of each file (N, N-M, N-, or a list: 176-177,223)", "N-M" },
		{ "since", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer)rs_opt_since, "Only frames at or after T (seconds from the first frame, live from the start, or epoch)", "T" },
		{ "until", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer)rs_opt_until, "Only frames before T (seconds from the first frame, live from the start, or epoch)", "T" },
		{ "qp", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer)rs_opt_qp, "Only the connection of destination QP number QPN", "QPN" },
		{ "conn", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer)rs_opt_conn, "Only CM connection N (the summary's # column)", "N" },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	GOptionEntry output[] = {
		{ "write", 'w', 0, G_OPTION_ARG_FILENAME, &o->write_file, "Write the frames to FILE (pcapng if it ends in .pcapng)", "FILE" },
		{ "file-size", 'C', 0, G_OPTION_ARG_CALLBACK, (gpointer)rs_opt_rotate_size, "With -w: start a new file after SIZE million bytes", "SIZE" },
		{ "rotate-seconds", 'G', 0, G_OPTION_ARG_INT, &gv->rotate_seconds, "With -w: start a new file every SECONDS", "SECONDS" },
		{ "file-count", 'W', 0, G_OPTION_ARG_INT, &gv->rotate_files, "With -C/-G: keep at most N files", "N" },
		{ "fields", 0, 0, G_OPTION_ARG_NONE, &gv->fields, "One CSV line per RoCE frame with every header field", NULL },
		{ "field", 'e', 0, G_OPTION_ARG_STRING_ARRAY, &gv->select, "With --fields: only column NAME (repeatable, in order)", "NAME" },
		{ "verdicts", 0, 0, G_OPTION_ARG_NONE, &gv->verdicts, "With --fields: add what the analysis concluded about each frame (resent, gap, message, the frame it answers...)", NULL },
		{ "walk", 'V', 0, G_OPTION_ARG_NONE, &gv->walk, "Classroom walkthrough: every layer of every frame, explained", NULL },
		{ "annotate", 0, 0, G_OPTION_ARG_FILENAME, &o->annotate, "Write every frame, unchanged, to OUT.pcapng with the analysis' verdict on it as a packet comment (for Wireshark)", "OUT.pcapng" },
		{ "compare", 0, 0, G_OPTION_ARG_NONE, &gv->compare, "Compare two captures A B of the same traffic at two points: packets seen at one only, clock offset, one-way delay", NULL },
		{ "ladder", 0, 0, G_OPTION_ARG_NONE, &gv->ladder, "Sequence (ladder) diagram of each connection", NULL },
		{ "format", 0, 0, G_OPTION_ARG_STRING, &gv->format, format_help, "FMT" },
		{ "metrics", 0, 0, G_OPTION_ARG_STRING, &gv->metrics, "With -i: serve Prometheus metrics at http://ADDR:PORT/metrics while capturing (ADDR: loopback unless given)", "[ADDR]:PORT" },
		{ "expect", 0, 0, G_OPTION_ARG_STRING_ARRAY, &gv->expect, "Assert EXPR over the analysis (repeatable), e.g. 'naks == 0' or 'qp(0x12).retransmitted_packets < 10': exit 0 if all hold, 1 if any fails", "EXPR" },
		{ "expect-junit", 0, 0, G_OPTION_ARG_FILENAME, &gv->expect_junit, "Write the --expect results to FILE as JUnit XML", "FILE" },
		{ "expect-names", 0, 0, G_OPTION_ARG_NONE, &gv->expect_names, "List the names --expect takes, and exit", NULL },
		{ "metrics-qps", 0, 0, G_OPTION_ARG_INT64, &gv->metrics_qps, "Metrics: QPs and host pairs with series of their own, the biggest (default 20); the rest add up in one 'other' series", "N" },
		{ "host", 0, 0, G_OPTION_ARG_STRING, &o->host, "With --format ndjson: the host name each line carries (default: this machine's)", "NAME" },
		{ "output", 'o', 0, G_OPTION_ARG_FILENAME, &o->output, "Write the report to FILE instead of standard output", "FILE" },
		{ "timeline", 0, 0, G_OPTION_ARG_FILENAME, &o->timeline, "Per-QP IO timeline as CSV, in time order, with latencies", "FILE.csv" },
		{ "timeline-fill", 0, 0, G_OPTION_ARG_NONE, &o->timeline_fill, "--timeline: zero rows for a half-flow's idle intervals (a dense grid)", NULL },
		{ "interval", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer)rs_opt_interval, "Timeline and plot interval (default 10ms)", "DURATION" },
		{ "plot", 0, 0, G_OPTION_ARG_FILENAME, &o->plot, "Throughput over time as an SVG chart", "FILE.svg" },
		{ "dscp", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer)rs_opt_dscp, "The DSCPs RoCE data and CNPs should carry (default data=26,cnp=48)", "data=N,cnp=M" },
		{ "link-speed", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer)rs_opt_link_speed, "Link speed in Gb/s for PAUSE/PFC pause times (default 100)", "GBPS" },
		{ "cnp-threshold", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer)rs_opt_cnp_threshold, "Report (and exit 1) when a QP receives more than N CNPs in a second (default: CNPs never make the exit status 1)", "N" },
		{ "top", 0, 0, G_OPTION_ARG_INT, &gv->top, "QPs drawn in the plot (default 8)", "N" },
		{ "bits", 0, 0, G_OPTION_ARG_NONE, &gv->bits, "Rates in bits per second (Mb/s, Gb/s: SI units, as perftest and link speeds), in the summary and --plot", NULL },
		{ "brief", 0, 0, G_OPTION_ARG_NONE, &o->brief, "The summary in one screen of 80x24: the verdicts, the top QPs by bytes and by trouble, and the commands to look closer", NULL },
		{ "full", 0, 0, G_OPTION_ARG_NONE, &o->full, "The summary with every finding and every row one by one (not grouped or folded)", NULL },
		{ "plot-size", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer)rs_opt_plot_size, "Plot size in pixels (default 1000x560)", "WxH" },
		{ "width", 0, 0, G_OPTION_ARG_INT, &gv->width, "Lay the text summary, the ladder, the walkthrough and --compare out for N columns (default: the terminal's, else 80, the walkthrough 100; 0: unlimited)", "N" },
		{ "quiet", 'q', 0, G_OPTION_ARG_NONE, &gv->quiet, "Live: one parseable line per interval instead of the screen", NULL },
		{ "refresh", 0, 0, G_OPTION_ARG_DOUBLE, &gv->refresh, "Live: seconds between updates (default 1)", "SECONDS" },
		{ "no-resolve", 'n', 0, G_OPTION_ARG_NONE, &gv->no_resolve, "Do not resolve addresses to host names", NULL },
		{ "color", 0, 0, G_OPTION_ARG_STRING, &gv->color, "Colour: auto (on a terminal), always or never", "WHEN" },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	GOptionEntry perf[] = {
		{ "jobs", 'j', 0, G_OPTION_ARG_INT, &gv->jobs, "Use up to N threads: one reads and decodes while another analyses (default: the number of CPUs; 1: one thread)", "N" },
		{ "max-flows", 0, 0, G_OPTION_ARG_INT64, &gv->max_flows, "Track at most N half-flows (and N/2 CM connections); evict (and report) the idlest (default: 1/32 of physical memory's worth; 0: no cap)", "N" },
		{ "version", 0, 0, G_OPTION_ARG_NONE, &gv->version, "Print the version and exit", NULL },
		{ "help", 'h', 0, G_OPTION_ARG_NONE, &gv->help, "Show this help and exit", NULL },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};

	GOptionContext *ctx = g_option_context_new("[FILE...] [BPF filter expression]");
	GOptionGroup *g = g_option_group_new(NULL, NULL, NULL, o, NULL);
	g_option_group_add_entries(g, input);
	g_option_group_add_entries(g, select);
	g_option_group_add_entries(g, output);
	g_option_group_add_entries(g, perf);
	gv->short_with_value = g_string_new(NULL);
	gv->long_with_value = g_ptr_array_new();
	note_values(gv, input);
	note_values(gv, select);
	note_values(gv, output);
	note_values(gv, perf);
	g_ptr_array_add(gv->long_with_value, NULL);
	g_option_context_set_main_group(ctx, g);
	g_option_context_set_help_enabled(ctx, FALSE); /* help.c lays it out */
	g_option_context_set_summary(ctx,
		"Capture and analyse RDMA over Converged Ethernet (RoCE v1/v2) and InfiniBand traffic.");
	g_option_context_set_description(ctx,
		"Examples:\n"
		"  rocestat capture.pcap                   one-screen summary of a capture\n"
		"  rocestat --format json capture.pcap     the same as JSON (json-compact: on one line)\n"
		"  rocestat --fields capture.pcap          every header field of every frame, CSV\n"
		"  rocestat -V --frames 3-7 capture.pcap   classroom walkthrough of frames 3 to 7\n"
		"  rocestat --ladder --qp 17 capture.pcap  sequence diagram of one connection\n"
		"  rocestat -i rxe0 -w out.pcapng          capture live on the netdev under rxe0\n"
		"  rocestat -r in.pcap -w out.pcap host 192.0.2.1   extract with a BPF filter\n"
		"  rocestat -- -V.pcap udp                 after --, no word is an option: leading words that name files are read, the first other one starts the filter (a second -- ends the files)\n"
		"\n"
		"Exit status: 0 clean; 1 anomalies or undecodable frames found; 2 usage error;\n"
		"3 an input could not be (fully) read or an output not written.\n");
	return ctx;
}

/* The values given, checked, into o; 0 or RS_EXIT_USAGE. */
static int take_values(const struct given *gv, struct rs_cli_opts *o)
{
	o->list_ifaces = gv->list;
	o->capture_all = gv->all;
	o->fields = gv->fields;
	o->verdicts = gv->verdicts;
	o->walk = gv->walk;
	/* The views that print the analysis' verdicts see every frame from the
	 * first, so that a frame shown alone keeps its context (a
	 * retransmission of a frame before the range). */
	o->context_frames = gv->walk || (gv->fields && gv->verdicts) || o->annotate;
	o->dissect.skip_layers = !gv->walk; /* where each header sits: for the walkthrough's hex dump only */
	o->ladder = gv->ladder;
	o->compare = gv->compare;
	o->no_resolve = gv->no_resolve;
	o->quiet = gv->quiet;
	o->refresh = gv->refresh;
	o->top = gv->top;
	o->bits = gv->bits;
	o->select = g_strdupv(gv->select);
	/* --fields analyses every frame for a verdict column, --qp or --conn. */
	for (int i = 0; gv->fields && o->select && o->select[i]; i++)
		o->context_frames |= rs_fields_column(o->select[i]) >= rs_fields_column("icrc_verdict");
	o->context_frames |= gv->fields && (o->qp >= 0 || o->conn >= 0);
	if (gv->count != NOT_GIVEN && gv->count <= 0)
		return fail("-c %" G_GINT64_FORMAT ": must be a positive number of frames", gv->count);
	o->count = gv->count == NOT_GIVEN ? 0 : gv->count;
	if (gv->snaplen < 0 || gv->snaplen > RS_DEFAULT_SNAPLEN)
		return fail("-s %d: the snap length must be between 1 and %d bytes", gv->snaplen, RS_DEFAULT_SNAPLEN);
	o->snaplen = gv->snaplen ? gv->snaplen : RS_DEFAULT_SNAPLEN;
	o->snaplen_given = gv->snaplen != 0;
	if (gv->buffer_kib < 0)
		return fail("-B %d: the buffer size must be positive", gv->buffer_kib);
	o->buffer_kib = gv->buffer_kib;
	if (gv->rotate_seconds < 0 || (gv->rotate_files != NOT_GIVEN && gv->rotate_files <= 0))
		return fail("-G and -W take positive numbers");
	o->rotate_seconds = (uint32_t)gv->rotate_seconds;
	o->rotate_files = gv->rotate_files == NOT_GIVEN ? 0 : (uint32_t)gv->rotate_files;
	if ((o->rotate_bytes || o->rotate_seconds || o->rotate_files) && !o->write_file)
		return fail("-C, -G and -W rotate the -w output; give -w FILE");
	if (o->rotate_files && !o->rotate_bytes && !o->rotate_seconds)
		return fail("-W needs -C or -G to say when to rotate");
	if (!(gv->refresh > 0 && gv->refresh <= 3600))
		return fail("--refresh %g: expected seconds between 0 and 3600", gv->refresh);
	if (gv->top < 1)
		return fail("--top %d: expected at least 1 QP", gv->top);
	if (gv->width != NOT_GIVEN && gv->width != 0 && (gv->width < 80 || gv->width > 100000))
		return fail("--width %d: expected 80 columns or more (0: unlimited)", gv->width);
	o->width = gv->width == NOT_GIVEN ? -1 : gv->width;
	if (gv->jobs != NOT_GIVEN && (gv->jobs < 1 || gv->jobs > 256))
		return fail("-j %d: expected between 1 and 256 threads", gv->jobs);
	/* Not given: as many as the CPUs this process may run on. */
	o->threads = gv->jobs != NOT_GIVEN ? gv->jobs : (int)MIN(g_get_num_processors(), 256u);
	if (gv->max_flows != NOT_GIVEN && gv->max_flows < 0)
		return fail("--max-flows %" G_GINT64_FORMAT ": expected a positive number", gv->max_flows);
	o->max_flows_default = gv->max_flows == NOT_GIVEN;
	o->max_flows = o->max_flows_default ? default_max_flows() : (uint64_t)gv->max_flows;
	int fmt = rs_report_format_find(gv->format ? gv->format : "text");
	if (fmt < 0) {
		char list[256];
		rs_report_format_list(list, sizeof list);
		return fail("--format \"%s\": expected %s", gv->format, list);
	}
	o->format = (enum rs_format)fmt;
	if (gv->metrics_qps != NOT_GIVEN && (gv->metrics_qps < 1 || gv->metrics_qps > 100000))
		return fail("--metrics-qps %" G_GINT64_FORMAT ": expected between 1 and 100000", gv->metrics_qps);
	o->metrics_qps = gv->metrics_qps != NOT_GIVEN ? (unsigned)gv->metrics_qps : 0;
	o->metrics = gv->metrics ? g_strdup(gv->metrics) : NULL;
	char err[RS_ERRBUF_SIZE];
	if (!rs_cli_take_expects(o, gv->expect, gv->expect_junit, err, sizeof err))
		return fail("%s", err);
	if (!gv->color || strcmp(gv->color, "auto") == 0)
		o->color = isatty(STDOUT_FILENO) && !o->output;
	else if (strcmp(gv->color, "always") == 0)
		o->color = 1;
	else if (strcmp(gv->color, "never") == 0)
		o->color = 0;
	else
		return fail("--color \"%s\": expected auto, always or never", gv->color);
	return 0;
}

/* Options that do not go together; 0 or RS_EXIT_USAGE. */
static int check_combinations(struct rs_cli_opts *o)
{
	if (o->timeline && strcmp(o->timeline, "-") == 0 && !o->output && !o->fields && !o->walk)
		return fail("--timeline - and the report would both go to standard output; add -o FILE (or -o /dev/null)");
	if (o->plot && strcmp(o->plot, "-") == 0 && !o->output)
		return fail("--plot - and the report would both go to standard output; add -o FILE (or -o /dev/null)");
	/* -w - takes standard output for the frames. Live, the summary at the
	 * end goes there too, as it always has; from files (-r ... -w) a report
	 * is only made when asked for, and then needs a file of its own. */
	if (o->write_file && strcmp(o->write_file, "-") == 0 && !o->output) {
		if (o->fields || o->walk)
			return fail("-w - and --%s would both write to standard output; pick one",
				    o->walk ? "walk" : "fields");
		if (!o->iface && (o->timeline || o->plot || o->ladder || o->format != RS_FORMAT_TEXT))
			return fail("-w - and the report would both go to standard output; add -o FILE");
	}
	if (o->annotate) {
		if (!rs_writer_is_pcapng(o->annotate))
			return fail("--annotate %s: packet comments need pcapng; name the file *.pcapng", o->annotate);
		if (o->iface || o->write_file || o->fields || o->walk || o->ladder || o->output || o->timeline || o->plot ||
		    o->format != RS_FORMAT_TEXT || o->qp >= 0)
			return fail("--annotate writes the frames of capture files to a pcapng file of its own; "
				    "run the other outputs (%s) separately",
				    o->iface ? "-i" : o->write_file ? "-w" : o->fields ? "--fields" : o->walk ? "--walk" :
				    o->ladder ? "--ladder" : o->output ? "-o" : o->timeline ? "--timeline" : o->plot ? "--plot" :
				    o->qp >= 0 ? "--qp" : "--format");
	}
	if (o->compare && (o->iface || o->write_file || o->fields || o->walk || o->ladder || o->annotate || o->timeline ||
			   o->plot || o->format != RS_FORMAT_TEXT || o->qp >= 0))
		return fail("--compare reads two capture files and writes its own report (to -o FILE or standard "
			    "output); run the other outputs separately");
	char err[RS_ERRBUF_SIZE];
	if (!rs_cli_check_outputs(o, err, sizeof err))
		return fail("%s", err);
	if (o->host && !(rs_report_formats[o->format].flags & RS_FMT_HOST))
		return fail("--host names the host of --format ndjson lines; give --format ndjson");
	if ((rs_report_formats[o->format].flags & RS_FMT_HOST) && !o->host)
		o->host = g_strdup(g_get_host_name());
	if (o->verdicts && !o->fields)
		return fail("--verdicts adds columns to --fields; give --fields too");
	if (o->fields + o->walk + o->ladder > 1)
		return fail("--fields, --walk and --ladder are different outputs; pick one");
	/* What only the summary makes, with an output that is not the summary:
	 * refused rather than silently left out. */
	if ((o->fields || o->walk) && (o->timeline || o->plot || o->format != RS_FORMAT_TEXT))
		return fail("--%s prints frames; %s belongs to the summary: run them separately",
			    o->fields ? "fields" : "walk", o->timeline ? "--timeline" : o->plot ? "--plot" : "--format");
	if (o->ladder && o->format != RS_FORMAT_TEXT)
		return fail("--ladder is a text diagram; --format applies to the summary");
	/* Which frames are the QP's is known from an analysis; a live capture's
	 * -w writes before one. */
	if (o->select && !o->fields)
		return fail("-e %s selects a column of --fields; give --fields too", o->select[0]);
	for (int i = 0; o->select && o->select[i]; i++) {
		if (i >= RS_FIELDS_MAX_SELECT)
			return fail("-e: at most %d columns", RS_FIELDS_MAX_SELECT);
		if (rs_fields_column(o->select[i]) < 0)
			return fail("-e %s: no such column; the names are those of the header of --fields --verdicts",
				    o->select[i]);
	}
	if (o->qp >= 0 && o->conn >= 0)
		return fail("--qp and --conn both pick a connection; give one");
	if (o->conn >= 0 && o->timeline)
		return fail("--conn with --timeline: the timeline's rows are half-flows; pick them with --qp");
	if (o->conn >= 0 && o->write_file && o->iface)
		return fail("--conn with -i -w: a live capture writes every frame that passes the filter; pick the "
			    "connection later with rocestat -r FILE -w OUT --conn %" PRId64, o->conn);
	if (o->qp >= 0 && o->write_file && o->iface)
		return fail("--qp with -i -w: a live capture writes every frame that passes the filter; pick the QP "
			    "later with rocestat -r FILE -w OUT --qp %" PRId64, o->qp);
	return 0;
}

/* The arguments left after the options: leading capture files (unless -r
 * or -i gave the source), then the filter; 0 or an RS_EXIT_ code. */
static int take_positional(int argc, char **argv, gchar **read_files, struct rs_cli_opts *o)
{
	if (!o->sysfs_root) {
		const char *env = getenv("ROCESTAT_SYSFS");
		o->sysfs_root = g_strdup(env && *env ? env : "/sys");
	}

	/* Positional arguments: leading capture files (unless -r/-i), then the filter. */
	GPtrArray *files = g_ptr_array_new_with_free_func(g_free); /* not freed when handed over: g_ptr_array_free(files, FALSE) */
	for (gchar **f = read_files; f && *f; f++)
		g_ptr_array_add(files, g_strdup(*f));
	int i = 1;
	if (!read_files && !o->iface && !o->list_ifaces) {
		/* A missing file or a directory among capture files is opened
		 * with the others, so the run names it in its reports and skips
		 * it (as -r does); given alone, there is nothing to report. */
		int good = 0, bad = 0, first_bad = 0, bad_errno = 0;
		int dashes = 0;
		for (; i < argc; i++) {
			/* After "--" no word is an option, so a file may be named
			 * "-V.pcap"; the files and the filter are told apart as
			 * before it (GLib leaves the "--" in argv). A second "--"
			 * ends the files: a filter word that names a file. */
			if (strcmp(argv[i], "--") == 0) {
				if (dashes++) {
					i++;
					break;
				}
				continue;
			}
			if (exists_as_capture(argv[i]) || strcmp(argv[i], "-") == 0) { /* -: standard input, as -r - */
				good++;
			} else if (errno == EISDIR || looks_like_path(argv[i])) {
				if (!bad++) {
					first_bad = i;
					bad_errno = errno ? errno : ENOENT;
				}
			} else {
				break;
			}
			g_ptr_array_add(files, g_strdup(argv[i]));
		}
		if (bad && !good) {
			/* Not a filter word either: named for what it is, not
			 * "no capture file given". */
			if (bad_errno == EISDIR)
				rs_eprintf("rocestat: %s: is a directory, not a capture file\n", argv[first_bad]);
			else
				rs_eprintf("rocestat: %s: %s\n", argv[first_bad], strerror(bad_errno));
			g_ptr_array_free(files, TRUE);
			return RS_EXIT_INPUT;
		}
	} else if (i < argc && strcmp(argv[i], "--") == 0) {
		i++;
	}
	if (i < argc)
		o->filter = g_strjoinv(" ", argv + i);
	g_ptr_array_add(files, NULL);
	o->files = (char **)g_ptr_array_free(files, FALSE);

	if (o->iface && o->files[0])
		return fail("-i and capture files are two different sources; give one");
	if (!o->iface && !o->list_ifaces && !o->files[0])
		return fail("no capture file or interface given (rocestat FILE..., -r FILE or -i IFACE; see --help)");
	return 0;
}

int rs_cli_parse(int argc, char **argv, struct rs_cli_opts *o)
{
	struct given gv = { .count = NOT_GIVEN, .max_flows = NOT_GIVEN, .metrics_qps = NOT_GIVEN, .rotate_files = NOT_GIVEN, .jobs = NOT_GIVEN, .top = 8, .refresh = 1.0,
			    .width = NOT_GIVEN };
	memset(o, 0, sizeof *o);
	o->qp = -1;
	o->conn = -1;
	o->interval_ns = RS_DEFAULT_INTERVAL_NS;
	GOptionContext *ctx = option_context(&gv, o);

	GError *err = NULL;
	int rc = 0;
	char **args = rs_cli_split_values(argc, argv, gv.short_with_value->str,
					  (const char *const *)gv.long_with_value->pdata);
	if (argc == 1) {
		rs_cli_print_usage(stderr);
		rc = RS_EXIT_USAGE;
	} else if (!g_option_context_parse_strv(ctx, &args, &err)) {
		rs_eprintf("rocestat: %s (see rocestat --help)\n", err->message);
		g_error_free(err);
		rc = RS_EXIT_USAGE;
	} else if (gv.help) {
		rs_cli_print_help(stdout, ctx);
		rc = -1;
	} else if (gv.version) {
		printf("rocestat %s\n", ROCESTAT_VERSION);
		rc = -1;
	} else if (gv.expect_names) {
		rs_expect_names(stdout);
		rc = -1;
	} else if ((rc = take_values(&gv, o)) == 0 && (rc = check_combinations(o)) == 0) {
		rc = take_positional((int)g_strv_length(args), args, gv.read_files, o);
		size_t n = 0;
		while (rc == 0 && o->compare && o->files && o->files[n])
			n++;
		if (rc == 0 && o->compare && n != 2)
			rc = fail("--compare takes two capture files, A and B (%zu given)", n);
	}
	g_strfreev(args);
	g_string_free(gv.short_with_value, TRUE);
	g_ptr_array_free(gv.long_with_value, TRUE);
	g_strfreev(gv.read_files);
	g_strfreev(gv.select);
	g_free(gv.color);
	g_free(gv.format);
	g_free(gv.metrics);
	g_strfreev(gv.expect);
	g_free(gv.expect_junit);
	g_option_context_free(ctx);
	return rc;
}

void rs_cli_free(struct rs_cli_opts *o)
{
	g_strfreev(o->files);
	g_strfreev(o->select);
	g_free(o->filter);
	g_free(o->iface);
	g_free(o->sysfs_root);
	g_free(o->drop_user);
	g_free(o->write_file);
	g_free(o->output);
	g_free(o->timeline);
	g_free(o->plot);
	g_free(o->annotate);
	g_free(o->host);
	g_free(o->metrics);
	g_free(o->expects);
	g_free(o->expect_junit);
	memset(o, 0, sizeof *o);
}
