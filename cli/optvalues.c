/*
 * optvalues.c — the values of the options that take more than a number or
 * a word: each option's callback for GOption (options.c's table names
 * them), which parses its argument into struct rs_cli_opts or refuses it
 * with a sentence saying what was expected.
 */
#include <errno.h>
#include <glib.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/optvalues.h"

#define BAD(err, ...) (g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, __VA_ARGS__), FALSE)

bool rs_parse_duration_ns(const char *s, uint64_t *ns)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v <= 0)
		return false;
	double mult;
	if (*end == '\0' || strcmp(end, "s") == 0)
		mult = 1e9;
	else if (strcmp(end, "ms") == 0)
		mult = 1e6;
	else if (strcmp(end, "us") == 0 || strcmp(end, "µs") == 0)
		mult = 1e3;
	else if (strcmp(end, "ns") == 0)
		mult = 1;
	else if (strcmp(end, "m") == 0 || strcmp(end, "min") == 0)
		mult = 60e9;
	else
		return false;
	double r = v * mult;
	if (r < 1 || r > 1e18)
		return false;
	*ns = (uint64_t)r;
	return true;
}

/* Decimal, or hexadecimal with 0x: a leading 0 is not octal here. */
static bool parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	errno = 0;
	if (*s == '-' || *s == '+')
		return false;
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	unsigned long long v = strtoull(hex ? s + 2 : s, &end, hex ? 16 : 10);
	if (hex && end == s + 2)
		return false;
	if (errno || end == s || *end || v > max)
		return false;
	*out = v;
	return true;
}

/* One range of --frames: N, N-M or N-; false if it is none of them. */
static bool parse_frame_range(const char *arg, const char *stop, struct rs_frame_range *r)
{
	char *end;
	errno = 0;
	if (arg == stop || *arg == '-' || *arg == '+')
		return false;
	unsigned long long a = strtoull(arg, &end, 10);
	if (errno || end == arg || a == 0)
		return false;
	r->first = r->last = a;
	if (end == stop)
		return true;
	if (*end != '-')
		return false;
	const char *b = end + 1;
	if (b == stop) {
		r->last = 0; /* open-ended */
		return true;
	}
	if (*b == '-' || *b == '+')
		return false;
	unsigned long long z = strtoull(b, &end, 10);
	if (errno || end == b || end != stop || z < a)
		return false;
	r->last = z;
	return true;
}

/* --frames 176-177,223 (and repeated --frames): a list of ranges. */
gboolean rs_opt_frames(const gchar *name, const gchar *arg, gpointer data, GError **err)
{
	struct rs_cli_opts *o = data;
	(void)name;
	const char *p = arg;
	for (;;) {
		const char *comma = strchr(p, ',');
		const char *stop = comma ? comma : p + strlen(p);
		struct rs_frame_range r;
		if (!parse_frame_range(p, stop, &r))
			return BAD(err, "--frames \"%s\": expected ranges N, N-M or N- with 1 <= N <= M, separated by "
				   "commas (176-177,223)", arg);
		if (o->n_frame_ranges == RS_MAX_FRAME_RANGES)
			return BAD(err, "--frames \"%s\": at most %d ranges", arg, RS_MAX_FRAME_RANGES);
		bool first = o->n_frame_ranges == 0;
		o->frame_ranges[o->n_frame_ranges++] = r;
		if (first || r.first < o->first_frame)
			o->first_frame = r.first;
		if (first || (o->last_frame && (r.last == 0 || r.last > o->last_frame)))
			o->last_frame = r.last;
		if (!comma)
			return TRUE;
		p = comma + 1;
	}
}

gboolean rs_opt_port(const gchar *name, const gchar *arg, gpointer data, GError **err)
{
	struct rs_cli_opts *o = data;
	uint64_t v;
	(void)name;
	if (!parse_u64(arg, 65535, &v) || v == 0)
		return BAD(err, "--roce-port \"%s\": not a UDP port (1-65535)", arg);
	if (o->dissect.n_extra_ports == RS_MAX_EXTRA_PORTS)
		return BAD(err, "--roce-port %s: at most %d extra ports", arg, RS_MAX_EXTRA_PORTS);
	o->dissect.extra_ports[o->dissect.n_extra_ports++] = (uint16_t)v;
	return TRUE;
}

/* --ulp PORT=NAME (or port:PORT=NAME): an RDMA CM port's upper-layer
 * protocol, by name; --ulp qp:QPN=NAME: a QP's, with or without CM. The
 * prefix tells the two apart: a bare number is a port, in decimal or with
 * 0x in hexadecimal, as it always was. */
gboolean rs_opt_ulp(const gchar *name, const gchar *arg, gpointer data, GError **err)
{
	struct rs_cli_opts *o = data;
	(void)name;
	bool by_qp = g_ascii_strncasecmp(arg, "qp:", 3) == 0;
	const char *key = by_qp ? arg + 3 : g_ascii_strncasecmp(arg, "port:", 5) == 0 ? arg + 5 : arg;
	const char *eq = strchr(key, '=');
	char num[16];
	uint64_t v;
	size_t klen = eq ? (size_t)(eq - key) : 0;
	if (!eq || !klen || klen >= sizeof num)
		return BAD(err, "--ulp \"%s\": expected PORT=NAME (an RDMA CM port) or qp:QPN=NAME (a QP number)", arg);
	memcpy(num, key, klen);
	num[klen] = '\0';
	if (by_qp && (!parse_u64(num, 0xFFFFFF, &v) || v < 2))
		return BAD(err, "--ulp \"%s\": %s is not a QP number (2-0xffffff; QP 0 and 1 carry management "
			   "datagrams)", arg, num);
	if (!by_qp && (!parse_u64(num, 65535, &v) || v == 0))
		return BAD(err, "--ulp \"%s\": %s is not a port (1-65535; a QP number is given as qp:QPN=NAME)", arg,
			   num);
	size_t nlen = strlen(eq + 1);
	if (!nlen || nlen >= sizeof o->ulp[0].name)
		return BAD(err, "--ulp \"%s\": the name must have 1 to %zu characters", arg, sizeof o->ulp[0].name - 1);
	for (const char *c = eq + 1; *c; c++)
		if (!g_ascii_isgraph(*c) || *c == '"' || *c == '\\' || *c == ',')
			return BAD(err, "--ulp \"%s\": the name may hold printable characters but no space, quote, "
				   "backslash or comma", arg);
	if (o->n_ulp == G_N_ELEMENTS(o->ulp))
		return BAD(err, "--ulp %s: at most %zu ports and QPs", arg, G_N_ELEMENTS(o->ulp));
	struct rs_ulp_map *m = &o->ulp[o->n_ulp++];
	*m = (struct rs_ulp_map){ .by_qp = by_qp };
	if (by_qp)
		m->qpn = (uint32_t)v;
	else
		m->port = (uint16_t)v;
	memcpy(m->name, eq + 1, nlen + 1);
	return TRUE;
}

gboolean rs_opt_interval(const gchar *name, const gchar *arg, gpointer data, GError **err)
{
	struct rs_cli_opts *o = data;
	(void)name;
	if (!rs_parse_duration_ns(arg, &o->interval_ns))
		return BAD(err, "--interval \"%s\": expected a duration such as 10ms, 1s or 250us", arg);
	return TRUE;
}

/* --dscp data=N,cnp=M (either or both): the DSCPs RoCE data and CNPs
 * should carry. */
gboolean rs_opt_dscp(const gchar *name, const gchar *arg, gpointer data, GError **err)
{
	struct rs_cli_opts *o = data;
	(void)name;
	gchar **parts = g_strsplit(arg, ",", -1);
	gboolean ok = parts[0] != NULL;
	for (int i = 0; ok && parts[i]; i++) {
		const char *eq = strchr(parts[i], '=');
		uint64_t v;
		ok = eq && parse_u64(eq + 1, 63, &v);
		if (ok && eq - parts[i] == 4 && !strncmp(parts[i], "data", 4))
			o->dscp_data1 = (uint8_t)(v + 1);
		else if (ok && eq - parts[i] == 3 && !strncmp(parts[i], "cnp", 3))
			o->dscp_cnp1 = (uint8_t)(v + 1);
		else
			ok = false;
	}
	g_strfreev(parts);
	if (!ok)
		return BAD(err, "--dscp \"%s\": expected data=N,cnp=M with DSCPs 0-63 (either may be left out)", arg);
	return TRUE;
}

/* --link-speed G: Gb/s, for the pause time a quantum stands for. */
gboolean rs_opt_link_speed(const gchar *name, const gchar *arg, gpointer data, GError **err)
{
	struct rs_cli_opts *o = data;
	uint64_t v;
	(void)name;
	if (!parse_u64(arg, 1600000, &v) || v == 0)
		return BAD(err, "--link-speed \"%s\": expected the link's speed in Gb/s (such as 25, 100, 400)", arg);
	o->link_gbps = (uint32_t)v;
	return TRUE;
}

gboolean rs_opt_cnp_threshold(const gchar *name, const gchar *arg, gpointer data, GError **err)
{
	struct rs_cli_opts *o = data;
	(void)name;
	uint64_t v;
	if (!parse_u64(arg, UINT64_MAX - 1, &v))
		return BAD(err, "--cnp-threshold \"%s\": expected a number of CNPs per second (0 or more)", arg);
	o->cnp_threshold1 = v + 1;
	return TRUE;
}

static gboolean parse_time(const char *opt, const char *arg, double *out, GError **err)
{
	char *end;
	errno = 0;
	double v = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(v) || v < 0)
		return BAD(err, "%s \"%s\": expected seconds from the first frame, or an epoch time", opt, arg);
	*out = v;
	return TRUE;
}

gboolean rs_opt_since(const gchar *name, const gchar *arg, gpointer data, GError **err)
{
	struct rs_cli_opts *o = data;
	o->have_since = true;
	return parse_time(name, arg, &o->since, err);
}

gboolean rs_opt_until(const gchar *name, const gchar *arg, gpointer data, GError **err)
{
	struct rs_cli_opts *o = data;
	o->have_until = true;
	return parse_time(name, arg, &o->until, err);
}

gboolean rs_opt_plot_size(const gchar *name, const gchar *arg, gpointer data, GError **err)
{
	struct rs_cli_opts *o = data;
	(void)name;
	unsigned w, h;
	char tail;
	/* Below 600x300 the legend and the axes' labels overlap the chart. */
	if (sscanf(arg, "%ux%u%c", &w, &h, &tail) != 2 || w < 600 || h < 300 || w > 20000 || h > 20000)
		return BAD(err, "--plot-size \"%s\": expected WIDTHxHEIGHT in pixels, at least 600x300", arg);
	o->plot_w = (int)w;
	o->plot_h = (int)h;
	return TRUE;
}

gboolean rs_opt_qp(const gchar *name, const gchar *arg, gpointer data, GError **err)
{
	struct rs_cli_opts *o = data;
	uint64_t v;
	(void)name;
	if (!parse_u64(arg, 0xFFFFFF, &v))
		return BAD(err, "--qp \"%s\": expected a QP number (decimal or 0x hex, 24 bits)", arg);
	o->qp = (int64_t)v;
	return TRUE;
}

gboolean rs_opt_conn(const gchar *name, const gchar *arg, gpointer data, GError **err)
{
	struct rs_cli_opts *o = data;
	uint64_t v;
	(void)name;
	if (!parse_u64(arg, 0xFFFFFFFEu, &v))
		return BAD(err, "--conn \"%s\": expected a connection number (the summary's # column)", arg);
	o->conn = (int64_t)v;
	return TRUE;
}

/* -C takes millions of bytes like tcpdump, or a k/M/G suffix. */
gboolean rs_opt_rotate_size(const gchar *name, const gchar *arg, gpointer data, GError **err)
{
	struct rs_cli_opts *o = data;
	char *end;
	(void)name;
	errno = 0;
	double v = strtod(arg, &end);
	double mult = 1e6;
	if (*end == 'k' || *end == 'K')
		mult = 1e3, end++;
	else if (*end == 'm' || *end == 'M')
		mult = 1e6, end++;
	else if (*end == 'g' || *end == 'G')
		mult = 1e9, end++;
	if (errno || end == arg || *end || !isfinite(v) || v <= 0 || v * mult < 1 || v * mult > 1e15)
		return BAD(err, "-C \"%s\": expected a file size in millions of bytes (or with a k, M or G suffix)", arg);
	o->rotate_bytes = (uint64_t)(v * mult);
	return TRUE;
}
