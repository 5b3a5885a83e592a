/*
 * format.c — numbers and names the way an engineer reads them: binary byte
 * units (KiB, MiB), rates per second, durations in ns/µs/ms/s, addresses
 * with the host name from /etc/hosts (never DNS: rocestat sends nothing on
 * the network), frame lists.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "analyzer/internal.h"

const char *rs_fmt_bytes(uint64_t v, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double d = (double)v;
	unsigned u = 0;
	while (d >= 1024 && u + 1 < G_N_ELEMENTS(unit)) {
		d /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%" PRIu64 " B", v);
	else
		snprintf(buf, len, "%.*f %s", d < 10 ? 2 : d < 100 ? 1 : 0, d, unit[u]);
	return buf;
}

const char *rs_fmt_rate(double Bps, char *buf, size_t len)
{
	static const char *const unit[] = { "B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s" };
	unsigned u = 0;
	while (Bps >= 1024 && u + 1 < G_N_ELEMENTS(unit)) {
		Bps /= 1024;
		u++;
	}
	snprintf(buf, len, "%.*f %s", u == 0 ? 0 : Bps < 10 ? 2 : Bps < 100 ? 1 : 0, Bps, unit[u]);
	return buf;
}

const char *rs_fmt_ns(uint64_t ns, char *buf, size_t len)
{
	if (ns < 1000)
		snprintf(buf, len, "%" PRIu64 " ns", ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.1f µs", ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.3f s", ns / 1e9);
	return buf;
}

GHashTable *rs_hosts_load(const char *path)
{
	GHashTable *h = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	FILE *f = fopen(path, "r");
	if (!f)
		return h;
	char line[1024];
	while (fgets(line, sizeof line, f)) {
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		char *save = NULL;
		char *addr = strtok_r(line, " \t\r\n", &save);
		char *name = addr ? strtok_r(NULL, " \t\r\n", &save) : NULL;
		if (!addr || !name)
			continue;
		/* Normalise the address text so lookups match rs_addr_format(). */
		unsigned char bin[16];
		char norm[INET6_ADDRSTRLEN];
		if (inet_pton(AF_INET, addr, bin) == 1)
			inet_ntop(AF_INET, bin, norm, sizeof norm);
		else if (inet_pton(AF_INET6, addr, bin) == 1)
			inet_ntop(AF_INET6, bin, norm, sizeof norm);
		else
			continue;
		/* The first line for an address wins, as in the resolver. */
		if (!g_hash_table_contains(h, norm))
			g_hash_table_insert(h, g_strdup(norm), g_strdup(name));
	}
	fclose(f);
	return h;
}

const char *rs_fmt_addr(const struct rs_analyzer *a, const struct rs_addr *ad, char *buf, size_t len)
{
	char txt[RS_ADDR_STRLEN];
	rs_addr_format(ad, txt);
	const char *name = a->hosts && ad->kind != RS_ADDR_LID ? g_hash_table_lookup(a->hosts, txt) : NULL;
	if (ad->kind == RS_ADDR_LID)
		snprintf(buf, len, "LID %s", txt);
	else if (name && strcmp(name, "localhost") != 0)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "%s", txt);
	return buf;
}

const char *rs_fmt_flow_addr(const struct rs_analyzer *a, const struct rs_flowkey *k, bool dst, char *buf,
			     size_t len)
{
	struct rs_addr ad;
	rs_flowkey_addr(k, dst, &ad);
	return rs_fmt_addr(a, &ad, buf, len);
}

const char *rs_fmt_frames(const struct rs_anomaly *an, const struct rs_analyzer *a, char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = '\0';
	bool multi = a->files->len > 1;
	for (uint32_t i = 0; i < an->nframes && o + 24 < len; i++) {
		if (multi)
			o += (size_t)snprintf(buf + o, len - o, "%s%u:%" PRIu64, i ? ", " : "", an->frames[i].file + 1,
					      an->frames[i].frame);
		else
			o += (size_t)snprintf(buf + o, len - o, "%s%" PRIu64, i ? ", " : "", an->frames[i].frame);
	}
	if (an->count > an->nframes && an->nframes == RS_SAMPLE_FRAMES && o + 4 < len)
		snprintf(buf + o, len - o, ", …");
	return buf;
}

const char *rs_fmt_service(uint64_t sid, char *buf, size_t len)
{
	if (rs_cm_service_is_rdma_cm(sid))
		snprintf(buf, len, "%s/%u", rs_cm_port_space_name(rs_cm_service_port_space(sid)),
			 rs_cm_service_port(sid));
	else
		snprintf(buf, len, "0x%016" PRIx64, sid);
	return buf;
}
