/*
 * live.h — capture from a live interface through libpcap (pcap_create ...
 * pcap_activate, block or immediate delivery, nanosecond timestamps where the
 * kernel gives them), the default RoCE-only capture filter, and dropping privileges once
 * the device is open.
 *
 * Same style as source.h: an opaque handle, an error buffer from the caller,
 * and every message names the interface and quotes the bad value.
 */
#ifndef RS_LIVE_H
#define RS_LIVE_H

#include <stdbool.h>
#include <stdint.h>

#include "capture/source.h"

/* An open live capture: libpcap's handle and what is kept with it. (The
 * live view's reading of an analysis is report/'s struct rs_live.) */
struct rs_live_handle;

struct rs_live_config {
	const char *device;      /* what pcap_create() gets: a netdev, "any", an RDMA sniffer device */
	int snaplen;             /* -s */
	int buffer_kib;          /* -B; 0 = libpcap's default */
	const char *filter;      /* the whole BPF expression (see rs_capture_filter), or NULL */
	const char *user_filter; /* the user's part of it, to blame in a compile error, or NULL */
	bool immediate;          /* each frame at once; else in ring blocks within 100 ms (see live.c) */
};

enum rs_live_failure {
	RS_LIVE_FAIL_DEVICE = 1, /* missing, down, no permission, unsupported link type */
	RS_LIVE_FAIL_FILTER,     /* the filter does not compile */
};

/* Open and activate the device and install the filter. NULL on failure with
 * errbuf set (one line: the device, the cause, a hint) and *why saying
 * which kind of failure it was. A non-fatal warning from pcap_activate is
 * available from rs_live_warning(). */
struct rs_live_handle *rs_live_open(const struct rs_live_config *cfg, enum rs_live_failure *why,
				    char errbuf[RS_ERRBUF_SIZE]);

/* Called for each captured frame; return false to stop this dispatch. */
typedef bool (*rs_live_frame_fn)(void *ctx, const struct rs_packet *pkt);

/*
 * Wait at most timeout_ms for frames, then hand over those that are there
 * (at most `max`, 0 = no limit). Returns how many were handed over, 0 if the
 * wait ended with none (timeout, or a signal interrupted it), or -1 with
 * errbuf set. frame_no counts every frame captured, from 1.
 */
int rs_live_dispatch(struct rs_live_handle *l, int timeout_ms, int max, rs_live_frame_fn fn, void *ctx,
		     char errbuf[RS_ERRBUF_SIZE]);

struct rs_live_stats {
	uint64_t captured;  /* frames handed over */
	uint64_t received;  /* pcap_stats ps_recv: frames that passed the kernel filter */
	uint64_t dropped;   /* ps_drop: no room in the buffer */
	uint64_t ifdropped; /* ps_ifdrop: dropped by the interface or driver */
};

bool rs_live_stats(struct rs_live_handle *l, struct rs_live_stats *st, char errbuf[RS_ERRBUF_SIZE]);

int rs_live_datalink(const struct rs_live_handle *l);
const char *rs_live_device(const struct rs_live_handle *l);
int rs_live_snaplen(const struct rs_live_handle *l);
/* pcap_activate's warning (promiscuous mode not supported ...), or NULL. */
const char *rs_live_warning(const struct rs_live_handle *l);
/* True when the kernel gives nanosecond timestamps; else microseconds x 1000. */
bool rs_live_nanoseconds(const struct rs_live_handle *l);
void rs_live_close(struct rs_live_handle *l);

/*
 * The capture filter. RoCE only unless `all`: EtherType 0x8915 (RoCE v1)
 * or UDP destination port 4791 (RoCE v2, IPv4 or IPv6) or one of the extra
 * ports, untagged or behind one or two VLAN tags; then `(that) and (user)`.
 * With `all`, just the user's filter (or NULL for everything). Returns a
 * malloc()ed string or NULL.
 */
char *rs_capture_filter(bool all, const uint16_t *extra_ports, int n_extra, const char *user);

/* -Z: become `user` (its groups, gid, uid) for good. */
bool rs_drop_privileges(const char *user, char errbuf[RS_ERRBUF_SIZE]);

#endif
