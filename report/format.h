/*
 * format.h — units and names for reports: byte counts, rates, durations,
 * addresses (with names from /etc/hosts), frame lists, services.
 */
#ifndef RS_FORMAT_H
#define RS_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyzer/analyzer.h"
#include "analyzer/result.h"


#define RS_ADDR_CACHE_BITS 8
#define RS_ADDR_CACHE (1u << RS_ADDR_CACHE_BITS)
#define RS_ADDR_CACHE_TEXT 96
struct rs_addr_cache {       /* one formatted address (texts that fit only) */
	struct rs_addr ad;
	bool used;
	uint8_t len;
	char text[RS_ADDR_CACHE_TEXT];
};
const char *rs_fmt_bytes(uint64_t v, char *buf, size_t len);
const char *rs_fmt_rate(double Bps, char *buf, size_t len);
/* The same rate in bits per second, SI units (--bits): "13.3 Mb/s". */
const char *rs_fmt_bitrate(double Bps, char *buf, size_t len);
const char *rs_fmt_ns(uint64_t ns, char *buf, size_t len);
/* Addresses as reports name them: a host name from /etc/hosts (when
 * resolving), else the address; texts are cached per struct rs_names. */
struct rs_names;
struct rs_names *rs_names_new(bool resolve);
void rs_names_free(struct rs_names *n);
const char *rs_fmt_addr(struct rs_names *n, const struct rs_addr *ad, char *buf, size_t len);
/* "source → destination" + sep + "0x<qpn>", e.g. sep " QP " (a flow's label). */
const char *rs_fmt_flow_pair(struct rs_names *n, const struct rs_addr *src, const struct rs_addr *dst, uint32_t qpn,
			     const char *sep, char *buf, size_t len);
/* A list of n frames, "3, 7, 9" (with several files: "1:3, 2:7"), and ", …"
 * when they are the first RS_SAMPLE_FRAMES of `count`. */
const char *rs_fmt_frames(const struct rs_fref *frames, uint32_t n, uint64_t count, bool multi, char *buf, size_t len);
const char *rs_fmt_service(uint64_t sid, char *buf, size_t len);
/* The same in 13 columns ("CM port 18515"), for the connections table,
 * whose detail line gives the port space. */
const char *rs_fmt_service_short(uint64_t sid, char *buf, size_t len);
/* "3 write 1 read" (messages by kind, enum rs_msg, named by rs_msg_key), or
 * "-" when there are none. */
const char *rs_fmt_msgs(const uint64_t msgs[RS_MSG__COUNT], char *buf, size_t len);

#endif
