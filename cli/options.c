/*
 * options.c — command-line parsing with GLib's GOption, in tcpdump's habits:
 * `-r FILE` (repeatable), `-c N`, `-n`, `-V`, and a BPF filter as trailing
 * arguments. `rocestat FILE...` also works: leading arguments that name
 * existing files are read as captures; whatever follows is the filter.
 */
#include <errno.h>
#include <glib.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"

static gboolean parse_frames(const char *arg, struct rs_cli_opts *o, GError **err)
{
	char *end;
	errno = 0;
	unsigned long long a = strtoull(arg, &end, 10);
	if (errno || end == arg || a == 0)
		goto bad;
	o->first_frame = a;
	o->last_frame = a;
	if (*end == '-') {
		const char *b = end + 1;
		if (*b == '\0') {
			o->last_frame = 0; /* open-ended */
			return TRUE;
		}
		unsigned long long z = strtoull(b, &end, 10);
		if (errno || end == b || *end || z < a)
			goto bad;
		o->last_frame = z;
		return TRUE;
	}
	if (*end == '\0')
		return TRUE;
bad:
	g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
		    "--frames \"%s\": expected N, N-M or N- with 1 <= N <= M", arg);
	return FALSE;
}

static gboolean add_port(const char *arg, struct rs_cli_opts *o, GError **err)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || v == 0 || v > 65535) {
		g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--roce-port \"%s\": not a UDP port", arg);
		return FALSE;
	}
	if (o->dissect.n_extra_ports == RS_MAX_EXTRA_PORTS) {
		g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--roce-port: at most %d extra ports",
			    RS_MAX_EXTRA_PORTS);
		return FALSE;
	}
	o->dissect.extra_ports[o->dissect.n_extra_ports++] = (uint16_t)v;
	return TRUE;
}

/* GOption callbacks get the options through the group's user data. */
static gboolean on_frames(const gchar *name, const gchar *value, gpointer data, GError **err)
{
	(void)name;
	return parse_frames(value, data, err);
}

static gboolean on_port(const gchar *name, const gchar *value, gpointer data, GError **err)
{
	(void)name;
	return add_port(value, data, err);
}

static bool looks_like_capture(const char *arg)
{
	struct stat st;
	if (stat(arg, &st) == 0)
		return S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode);
	return false;
}

static bool looks_like_path(const char *arg)
{
	return strchr(arg, '/') || g_str_has_suffix(arg, ".pcap") || g_str_has_suffix(arg, ".pcapng") ||
	       g_str_has_suffix(arg, ".cap") || g_str_has_suffix(arg, ".erf");
}

int rs_cli_parse(int argc, char **argv, struct rs_cli_opts *o)
{
	gchar **read_files = NULL;
	gchar *color = NULL;
	gint64 count = 0;
	gboolean fields = FALSE, walk = FALSE, no_resolve = FALSE, version = FALSE;

	memset(o, 0, sizeof *o);
	GOptionEntry entries[] = {
		{ "read", 'r', 0, G_OPTION_ARG_FILENAME_ARRAY, &read_files, "Read frames from FILE (repeatable)", "FILE" },
		{ "count", 'c', 0, G_OPTION_ARG_INT64, &count, "Stop after N frames that pass the filter", "N" },
		{ "fields", 0, 0, G_OPTION_ARG_NONE, &fields, "One CSV line per RoCE frame with every header field", NULL },
		{ "walk", 'V', 0, G_OPTION_ARG_NONE, &walk, "Classroom walkthrough: every layer of every frame explained",
		  NULL },
		{ "frames", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer)on_frames, "Only frames N to M (N, N-M or N-)",
		  "N-M" },
		{ "roce-port", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer)on_port,
		  "Also decode UDP destination PORT as RoCE v2 (repeatable)", "PORT" },
		{ "color", 0, 0, G_OPTION_ARG_STRING, &color, "Colour: auto (on a terminal), always or never", "WHEN" },
		{ "no-resolve", 'n', 0, G_OPTION_ARG_NONE, &no_resolve, "Do not resolve addresses to names", NULL },
		{ "version", 0, 0, G_OPTION_ARG_NONE, &version, "Print the version and exit", NULL },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	GOptionContext *ctx = g_option_context_new("[FILE...] [BPF filter expression]");
	GOptionGroup *main_group = g_option_group_new(NULL, NULL, NULL, o, NULL);
	g_option_group_add_entries(main_group, entries);
	g_option_context_set_main_group(ctx, main_group);
	g_option_context_set_summary(ctx, "Capture and analyse RDMA over Converged Ethernet (RoCE v1/v2) and InfiniBand.");
	g_option_context_set_description(ctx,
		"Examples:\n"
		"  rocestat capture.pcap                 summary of a capture\n"
		"  rocestat --fields capture.pcap        every header field, CSV\n"
		"  rocestat -V --frames 3-7 capture.pcap walk through frames 3 to 7\n"
		"  rocestat -r capture.pcap udp port 4791 and host 192.0.2.1\n"
		"\nExit status: 0 clean, 1 anomalies or undecodable frames found,\n"
		"2 usage error, 3 an input could not be (fully) read.\n");

	GError *err = NULL;
	int rc = 0;
	if (!g_option_context_parse(ctx, &argc, &argv, &err)) {
		fprintf(stderr, "rocestat: %s (see rocestat --help)\n", err->message);
		g_error_free(err);
		rc = RS_EXIT_USAGE;
		goto out;
	}
	if (version) {
		printf("rocestat %s\n", ROCESTAT_VERSION);
		rc = -1;
		goto out;
	}
	if (count < 0) {
		fprintf(stderr, "rocestat: -c %" G_GINT64_FORMAT ": must be positive\n", count);
		rc = RS_EXIT_USAGE;
		goto out;
	}
	o->count = count;
	o->fields = fields;
	o->walk = walk;
	o->no_resolve = no_resolve;
	if (!color || strcmp(color, "auto") == 0)
		o->color = isatty(STDOUT_FILENO);
	else if (strcmp(color, "always") == 0)
		o->color = 1;
	else if (strcmp(color, "never") == 0)
		o->color = 0;
	else {
		fprintf(stderr, "rocestat: --color \"%s\": expected auto, always or never\n", color);
		rc = RS_EXIT_USAGE;
		goto out;
	}
	if (o->fields && o->walk) {
		fprintf(stderr, "rocestat: --fields and --walk are two different outputs; pick one\n");
		rc = RS_EXIT_USAGE;
		goto out;
	}

	/* Positional arguments: leading capture files, then the filter. */
	GPtrArray *files = g_ptr_array_new();
	for (gchar **f = read_files; f && *f; f++)
		g_ptr_array_add(files, g_strdup(*f));
	int i = 1;
	if (!read_files) {
		for (; i < argc; i++) {
			if (strcmp(argv[i], "--") == 0) {
				i++;
				break;
			}
			if (looks_like_capture(argv[i]))
				g_ptr_array_add(files, g_strdup(argv[i]));
			else if (looks_like_path(argv[i])) {
				fprintf(stderr, "rocestat: %s: %s\n", argv[i], strerror(errno ? errno : ENOENT));
				g_ptr_array_free(files, TRUE);
				rc = RS_EXIT_INPUT;
				goto out;
			} else
				break;
		}
	}
	if (i < argc)
		o->filter = g_strjoinv(" ", argv + i);
	g_ptr_array_add(files, NULL);
	o->files = (char **)g_ptr_array_free(files, FALSE);
	if (!o->files[0]) {
		fprintf(stderr, "rocestat: no capture file given (rocestat FILE..., or -r FILE; see --help)\n");
		rc = RS_EXIT_USAGE;
	}
out:
	g_strfreev(read_files);
	g_free(color);
	g_option_context_free(ctx);
	return rc;
}

void rs_cli_free(struct rs_cli_opts *o)
{
	g_strfreev(o->files);
	g_free(o->filter);
	memset(o, 0, sizeof *o);
}
