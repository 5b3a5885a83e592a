/*
 * format.c — numbers and names the way an engineer reads them: binary byte
 * units (KiB, MiB), rates per second, durations in ns/µs/ms/s, addresses
 * with the host name from /etc/hosts (never DNS: rocestat sends nothing on
 * the network), frame lists.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analyzer/result.h"
#include "report/format.h"
#include "report/outbuf.h"

/* s (n bytes) appended at o as snprintf(buf + o, len - o, "%s", s) would:
 * cut to fit, and the length it wanted returned (o + n). */
static size_t text_append(char *buf, size_t len, size_t o, const char *s, size_t n)
{
	if (o < len) {
		size_t k = n < len - o - 1 ? n : len - o - 1;
		memcpy(buf + o, s, k);
		buf[o + k] = '\0';
	}
	return o + n;
}

/* snprintf(buf, len, "%.*f%s", prec, x, suffix), for the reports' thousands
 * of numbers without printf's general floating-point conversion (most of a
 * big report's time). printf rounds the exact binary value of x to prec
 * decimals, half to even. Here in integers, exactly: x = m * 2^e with a
 * 53-bit m (frexp and ldexp are exact), m * 10^prec fits 63 bits (prec <=
 * 3), and the bits shifted out say whether it rounds up. (Not in long
 * double: that is a double on some platforms, and valgrind computes x87
 * long doubles with 64-bit doubles.)
 * false: not handled here (x negative, negative zero, NaN, >= 1e15). */
static bool fixed(char *buf, size_t len, double x, int prec, const char *suffix)
{
	static const uint64_t pow10[] = { 1, 10, 100, 1000 };
	/* signbit: printf writes "-0.00" for a negative zero. */
	if (!(x >= 0 && x < 1e15) || signbit(x) || prec < 0 || prec > 3)
		return false;
	int e;
	double f = frexp(x, &e); /* x = f * 2^e, f in [0.5, 1), or 0 */
	uint64_t t = (uint64_t)ldexp(f, 53) * pow10[prec]; /* x * 10^prec = t * 2^(e - 53) */
	e -= 53;
	uint64_t k; /* x * 10^prec rounded to an integer, half to even */
	if (e >= 0) { /* only x = 0 (x < 1e15 < 2^53 has fraction bits otherwise) */
		k = t << e;
	} else if (e > -64) {
		unsigned sh = (unsigned)-e;
		uint64_t rest = t & ((UINT64_C(1) << sh) - 1), half = UINT64_C(1) << (sh - 1);
		k = t >> sh;
		if (rest > half || (rest == half && (k & 1)))
			k++;
	} else { /* t < 2^63, so t * 2^e < 1/2: rounds to 0 */
		k = 0;
	}
	char tmp[64], *p = tmp + sizeof tmp;
	size_t sl = strlen(suffix);
	if (sl > 32)
		return false;
	p -= sl;
	memcpy(p, suffix, sl);
	uint64_t ip = k / pow10[prec], fp = k % pow10[prec];
	for (int i = 0; i < prec; i++, fp /= 10)
		*--p = (char)('0' + fp % 10);
	if (prec)
		*--p = '.';
	do
		*--p = (char)('0' + ip % 10);
	while (ip /= 10);
	text_append(buf, len, 0, p, (size_t)(tmp + sizeof tmp - p));
	return true;
}

const char *rs_fmt_bytes(uint64_t v, char *buf, size_t len)
{
	static const char *const unit[] = { " B", " KiB", " MiB", " GiB", " TiB", " PiB" };
	double d = (double)v;
	unsigned u = 0;
	while (d >= 1024 && u + 1 < G_N_ELEMENTS(unit)) {
		d /= 1024;
		u++;
	}
	int prec = d < 10 ? 2 : d < 100 ? 1 : 0;
	if (u == 0) {
		if (!fixed(buf, len, d, 0, " B")) /* v < 1024: exact as a double */
			snprintf(buf, len, "%" PRIu64 " B", v);
	} else if (!fixed(buf, len, d, prec, unit[u]))
		snprintf(buf, len, "%.*f%s", prec, d, unit[u]);
	return buf;
}

/* v in the largest of units[0..5) (each `step` times the one before) that
 * keeps it at least 1, to 3 significant digits. */
static const char *scaled(double v, double step, const char *const unit[5], char *buf, size_t len)
{
	unsigned u = 0;
	while (v >= step && u + 1 < 5) {
		v /= step;
		u++;
	}
	int prec = u == 0 ? 0 : v < 10 ? 2 : v < 100 ? 1 : 0;
	if (!fixed(buf, len, v, prec, unit[u]))
		snprintf(buf, len, "%.*f%s", prec, v, unit[u]);
	return buf;
}

const char *rs_fmt_rate(double Bps, char *buf, size_t len)
{
	static const char *const unit[5] = { " B/s", " KiB/s", " MiB/s", " GiB/s", " TiB/s" };
	return scaled(Bps, 1024, unit, buf, len);
}

/* Bits per second in SI units (1 Mb/s = 10^6 b/s), as perftest and NIC
 * link speeds state them. */
const char *rs_fmt_bitrate(double Bps, char *buf, size_t len)
{
	static const char *const unit[5] = { " b/s", " kb/s", " Mb/s", " Gb/s", " Tb/s" };
	return scaled(Bps * 8, 1000, unit, buf, len);
}

const char *rs_fmt_ns(uint64_t ns, char *buf, size_t len)
{
	if (ns < 1000) {
		if (!fixed(buf, len, (double)ns, 0, " ns")) /* exact as a double */
			snprintf(buf, len, "%" PRIu64 " ns", ns);
	} else if (ns < 1000000) {
		if (!fixed(buf, len, ns / 1e3, 1, " µs"))
			snprintf(buf, len, "%.1f µs", ns / 1e3);
	} else if (ns < 1000000000) {
		if (!fixed(buf, len, ns / 1e6, 2, " ms"))
			snprintf(buf, len, "%.2f ms", ns / 1e6);
	} else if (!fixed(buf, len, ns / 1e9, 3, " s"))
		snprintf(buf, len, "%.3f s", ns / 1e9);
	return buf;
}

static GHashTable *hosts_load(const char *path)
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

struct rs_names {
	GHashTable *hosts;        /* address text -> name, from /etc/hosts (unless -n) */
	struct rs_addr_cache cache[RS_ADDR_CACHE];
};

struct rs_names *rs_names_new(bool resolve)
{
	struct rs_names *n = g_new0(struct rs_names, 1);
	if (resolve)
		n->hosts = hosts_load("/etc/hosts");
	return n;
}

void rs_names_free(struct rs_names *n)
{
	if (!n)
		return;
	if (n->hosts)
		g_hash_table_destroy(n->hosts);
	g_free(n);
}

static void addr_text(const struct rs_names *n, const struct rs_addr *ad, char *buf, size_t len)
{
	char txt[RS_ADDR_STRLEN];
	rs_addr_format(ad, txt);
	const char *name = n->hosts && ad->kind != RS_ADDR_LID ? g_hash_table_lookup(n->hosts, txt) : NULL;
	if (ad->kind == RS_ADDR_LID)
		snprintf(buf, len, "LID %s", txt);
	else if (name && strcmp(name, "localhost") != 0)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "%s", txt);
}

/* Reports name the same few hosts for thousands of flows, and inet_ntop()
 * plus the /etc/hosts lookup cost thousands of instructions a time: the
 * texts are kept in a small direct-mapped cache (struct rs_addr_cache),
 * keyed by the whole address, so a collision only costs a new formatting.
 * The text depends on nothing else that can change (the hosts are loaded
 * once). A struct rs_names is one writer's: it is never shared between
 * threads. */

const char *rs_fmt_addr(struct rs_names *n, const struct rs_addr *ad, char *buf, size_t len)
{
	uint32_t h = ad->kind * 0x9E3779B1u;
	for (int i = 0; i < 16; i += 4) {
		uint32_t w;
		memcpy(&w, ad->b + i, 4);
		h = (h ^ w) * 0x85EBCA6Bu;
	}
	struct rs_addr_cache *e = &n->cache[h >> (32 - RS_ADDR_CACHE_BITS)];
	if (!e->used || e->ad.kind != ad->kind || memcmp(e->ad.b, ad->b, 16) != 0) {
		char t[RS_ADDR_CACHE_TEXT + 1];
		addr_text(n, ad, t, sizeof t);
		size_t tl = strlen(t);
		if (tl >= RS_ADDR_CACHE_TEXT) { /* perhaps cut: not cached */
			addr_text(n, ad, buf, len);
			return buf;
		}
		e->ad = *ad;
		e->used = true;
		e->len = (uint8_t)tl;
		memcpy(e->text, t, tl);
	}
	if (len) {
		size_t c = e->len < len - 1 ? e->len : len - 1; /* cut to fit, as snprintf */
		memcpy(buf, e->text, c);
		buf[c] = '\0';
	}
	return buf;
}

/* snprintf(buf, len, "%s → %s%s0x%x", source, destination, sep, qpn), by
 * hand: a report writes it for every QP (printf's format parsing was a
 * large part of a million-QP report). */
const char *rs_fmt_flow_pair(struct rs_names *n, const struct rs_addr *src_ad, const struct rs_addr *dst_ad, uint32_t qp,
			     const char *sep, char *buf, size_t len)
{
	char s[96], d[96], hex[8];
	const char *src = rs_fmt_addr(n, src_ad, s, sizeof s), *dst = rs_fmt_addr(n, dst_ad, d, sizeof d);
	const char *qpn = rs_digits_hex(hex + sizeof hex, qp);
	size_t o = text_append(buf, len, 0, src, strlen(src));
	o = text_append(buf, len, o, " → ", strlen(" → "));
	o = text_append(buf, len, o, dst, strlen(dst));
	o = text_append(buf, len, o, sep, strlen(sep));
	o = text_append(buf, len, o, "0x", 2);
	text_append(buf, len, o, qpn, (size_t)(hex + sizeof hex - qpn));
	return buf;
}

const char *rs_fmt_frames(const struct rs_fref *frames, uint32_t n, uint64_t count, bool multi, char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = '\0';
	for (uint32_t i = 0; i < n && o + 24 < len; i++) {
		if (multi)
			o += (size_t)snprintf(buf + o, len - o, "%s%u:%" PRIu64, i ? ", " : "", frames[i].file + 1,
					      frames[i].frame);
		else
			o += (size_t)snprintf(buf + o, len - o, "%s%" PRIu64, i ? ", " : "", frames[i].frame);
	}
	if (count > n && n == RS_SAMPLE_FRAMES && o + 4 < len)
		snprintf(buf + o, len - o, ", …");
	return buf;
}

/* "3 write 1 read": messages by kind, by hand (snprintf's format parse per
 * kind was a tenth of a million-QP report), cut as snprintf cuts. */
const char *rs_fmt_msgs(const uint64_t msgs[RS_MSG__COUNT], char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = '\0';
	for (int k = 0; k < RS_MSG__COUNT && o + 20 < len; k++) {
		uint64_t v = msgs[k];
		if (!v)
			continue;
		char d[22]; /* " " + up to 20 digits + " " */
		d[sizeof d - 1] = ' ';
		char *p = rs_digits_u64(d + sizeof d - 1, v);
		if (o)
			*--p = ' ';
		o = text_append(buf, len, o, p, (size_t)(d + sizeof d - p));
		const char *key = rs_msg_key((enum rs_msg)k);
		o = text_append(buf, len, o, key, strlen(key));
	}
	if (!o)
		text_append(buf, len, 0, "-", 1);
	return buf;
}

/* "TCP/7174" read as TCP: it is an RDMA CM port in the TCP port space
 * (IBTA Annex A11.3), not a TCP connection. */
const char *rs_fmt_service(uint64_t sid, char *buf, size_t len)
{
	if (rs_cm_service_is_rdma_cm(sid))
		snprintf(buf, len, "RDMA CM port %u (%s port space)", rs_cm_service_port(sid),
			 rs_cm_port_space_name(rs_cm_service_port_space(sid)));
	else
		snprintf(buf, len, "0x%016" PRIx64, sid);
	return buf;
}

const char *rs_fmt_service_short(uint64_t sid, char *buf, size_t len)
{
	if (rs_cm_service_is_rdma_cm(sid))
		snprintf(buf, len, "CM port %u", rs_cm_service_port(sid));
	else
		snprintf(buf, len, "0x%016" PRIx64, sid);
	return buf;
}
