/*
 * live.c — live capture through libpcap.
 *
 * pcap_create/pcap_activate rather than pcap_open_live: that is how the
 * buffer size, the delivery mode and the timestamp precision are set.
 *
 * Delivery: by default the kernel hands frames over in ring blocks, each at
 * the latest BLOCK_TIMEOUT_MS after its first frame, which is soon enough
 * for a view refreshed every second and for -c. Immediate mode (per frame,
 * cfg->immediate) makes libpcap on Linux use TPACKET_V2, whose ring slots
 * are sized for the largest frame (64 KiB with offloads on): libpcap's
 * default 2 MiB buffer then holds about 32 frames, and a top-speed replay
 * loses most of its frames (bench/capture_drops.sh measures it; so does
 * tcpdump --immediate-mode), against none in block mode, tcpdump's default. The handle is
 * non-blocking: rs_live_dispatch() waits in poll(2) on the selectable fd,
 * so the caller gets control back on its own timeout (the periodic tick)
 * and on a signal (poll fails with EINTR), then drains what is there.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pcap/pcap.h>

#include "capture/live.h"
#include "dissect/dissect.h"

#define BLOCK_TIMEOUT_MS 100

struct rs_live_handle {
	pcap_t *pcap;
	char *device;
	int fd;                  /* pcap_get_selectable_fd(), or -1 */
	bool nano;
	char warning[RS_ERRBUF_SIZE];
	uint64_t frame_no;
	int dlt;
	/* For the pcap callback. */
	rs_live_frame_fn fn;
	void *ctx;
	bool stopped;
};

static const char HINT_PERM[] = "run as root, or give the program the capabilities: "
				"setcap cap_net_raw,cap_net_admin=eip rocestat";

/* pcap_activate's error as one line: the device, the cause, a hint. */
static void activate_error(pcap_t *p, const char *dev, int rc, char errbuf[RS_ERRBUF_SIZE])
{
	const char *detail = pcap_geterr(p);
	if (!detail || !*detail)
		detail = pcap_statustostr(rc);
	switch (rc) {
	case PCAP_ERROR_NO_SUCH_DEVICE:
		snprintf(errbuf, RS_ERRBUF_SIZE,
			 "%s: no such capture interface (%s); `rocestat -D` lists the interfaces and RDMA devices", dev,
			 detail);
		break;
	case PCAP_ERROR_PERM_DENIED:
	case PCAP_ERROR_PROMISC_PERM_DENIED:
		snprintf(errbuf, RS_ERRBUF_SIZE, "%s: no permission to capture (%s); %s", dev, detail, HINT_PERM);
		break;
	case PCAP_ERROR_IFACE_NOT_UP:
		snprintf(errbuf, RS_ERRBUF_SIZE, "%s: the interface is down; bring it up with `ip link set %s up`", dev,
			 dev);
		break;
	default:
		snprintf(errbuf, RS_ERRBUF_SIZE, "%s: cannot capture: %s", dev, detail);
		break;
	}
}

static bool set_filter(struct rs_live_handle *l, const struct rs_live_config *cfg, char errbuf[RS_ERRBUF_SIZE])
{
	struct bpf_program prog;
	bpf_u_int32 net = 0, mask = PCAP_NETMASK_UNKNOWN;
	char lookup_err[PCAP_ERRBUF_SIZE];
	/* The netmask only matters to "ip broadcast"; without one, that fails. */
	if (pcap_lookupnet(l->device, &net, &mask, lookup_err) != 0)
		mask = PCAP_NETMASK_UNKNOWN;
	if (pcap_compile(l->pcap, &prog, cfg->filter, 1, mask) != 0) {
		char msg[PCAP_ERRBUF_SIZE + 1];
		snprintf(msg, sizeof msg, "%s", pcap_geterr(l->pcap));
		/* Blame the user's expression when it is the part that fails. */
		const char *shown = cfg->filter;
		if (cfg->user_filter && *cfg->user_filter) {
			struct bpf_program p2;
			if (pcap_compile(l->pcap, &p2, cfg->user_filter, 1, mask) != 0) {
				shown = cfg->user_filter;
				snprintf(msg, sizeof msg, "%s", pcap_geterr(l->pcap));
			} else {
				pcap_freecode(&p2);
			}
		}
		snprintf(errbuf, RS_ERRBUF_SIZE, "%s: bad filter \"%s\": %s", l->device, shown, msg);
		return false;
	}
	int rc = pcap_setfilter(l->pcap, &prog);
	pcap_freecode(&prog);
	if (rc != 0) {
		snprintf(errbuf, RS_ERRBUF_SIZE, "%s: cannot install the filter \"%s\": %s", l->device, cfg->filter,
			 pcap_geterr(l->pcap));
		return false;
	}
	return true;
}

struct rs_live_handle *rs_live_open(const struct rs_live_config *cfg, enum rs_live_failure *why,
				    char errbuf[RS_ERRBUF_SIZE])
{
	char perr[PCAP_ERRBUF_SIZE] = "";
	const char *dev = cfg->device;
	*why = RS_LIVE_FAIL_DEVICE;

	struct rs_live_handle *l = calloc(1, sizeof *l);
	if (!l || !(l->device = strdup(dev))) {
		snprintf(errbuf, RS_ERRBUF_SIZE, "%s: out of memory", dev);
		free(l);
		return NULL;
	}
	l->fd = -1;
	l->pcap = pcap_create(dev, perr);
	if (!l->pcap) {
		snprintf(errbuf, RS_ERRBUF_SIZE, "%s: cannot capture: %s", dev, perr);
		goto fail;
	}
	/* Each setting can only fail on an activated handle; checked anyway. */
	if (pcap_set_snaplen(l->pcap, cfg->snaplen) != 0 || pcap_set_promisc(l->pcap, 1) != 0 ||
	    pcap_set_immediate_mode(l->pcap, cfg->immediate) != 0 || pcap_set_timeout(l->pcap, BLOCK_TIMEOUT_MS) != 0 ||
	    (cfg->buffer_kib > 0 && pcap_set_buffer_size(l->pcap, cfg->buffer_kib * 1024) != 0)) {
		snprintf(errbuf, RS_ERRBUF_SIZE, "%s: cannot set up the capture: %s", dev, pcap_geterr(l->pcap));
		goto fail;
	}
	l->nano = pcap_set_tstamp_precision(l->pcap, PCAP_TSTAMP_PRECISION_NANO) == 0;

	int rc = pcap_activate(l->pcap);
	if (rc < 0) {
		activate_error(l->pcap, dev, rc, errbuf);
		goto fail;
	}
	if (rc > 0) {
		const char *detail = pcap_geterr(l->pcap);
		snprintf(l->warning, sizeof l->warning, "%s: %s%s%s", dev, pcap_statustostr(rc),
			 detail && *detail ? ": " : "", detail && *detail ? detail : "");
	}
	l->nano = l->nano && pcap_get_tstamp_precision(l->pcap) == PCAP_TSTAMP_PRECISION_NANO;

	int dlt = pcap_datalink(l->pcap);
	if (!rs_linktype_supported(dlt)) {
		const char *n = pcap_datalink_val_to_name(dlt);
		snprintf(errbuf, RS_ERRBUF_SIZE,
			 "%s: link type %d (%s) is not one rocestat decodes (Ethernet, Linux cooked SLL/SLL2, raw IP, "
			 "InfiniBand, ERF)",
			 dev, dlt, n ? n : "unknown to libpcap");
		goto fail;
	}
	l->dlt = dlt;
	if (cfg->filter && *cfg->filter && !set_filter(l, cfg, errbuf)) {
		*why = RS_LIVE_FAIL_FILTER;
		goto fail;
	}
	if (pcap_setnonblock(l->pcap, 1, perr) != 0) {
		snprintf(errbuf, RS_ERRBUF_SIZE, "%s: cannot make the capture non-blocking: %s", dev, perr);
		goto fail;
	}
	l->fd = pcap_get_selectable_fd(l->pcap);
	return l;
fail:
	rs_live_close(l);
	return NULL;
}

static void on_frame(u_char *user, const struct pcap_pkthdr *h, const u_char *data)
{
	struct rs_live_handle *l = (struct rs_live_handle *)user;
	struct rs_packet pkt = {
		.data = data,
		.caplen = h->caplen,
		.wirelen = h->len,
		/* With nanosecond precision libpcap puts nanoseconds in tv_usec. */
		.ts_ns = (uint64_t)h->ts.tv_sec * 1000000000u + (uint64_t)h->ts.tv_usec * (l->nano ? 1u : 1000u),
		.frame_no = ++l->frame_no,
		.dlt = l->dlt,
	};
	if (!l->fn(l->ctx, &pkt)) {
		l->stopped = true;
		pcap_breakloop(l->pcap);
	}
}

int rs_live_dispatch(struct rs_live_handle *l, int timeout_ms, int max, rs_live_frame_fn fn, void *ctx,
		     char errbuf[RS_ERRBUF_SIZE])
{
	if (l->fd >= 0) {
		/* libpcap may need to be polled again sooner on some platforms. */
		const struct timeval *req = pcap_get_required_select_timeout(l->pcap);
		if (req) {
			long ms = req->tv_sec * 1000 + req->tv_usec / 1000;
			if (ms < timeout_ms)
				timeout_ms = (int)ms;
		}
		struct pollfd pfd = { .fd = l->fd, .events = POLLIN };
		int rc = poll(&pfd, 1, timeout_ms);
		if (rc < 0 && errno == EINTR)
			return 0;
		if (rc < 0) {
			snprintf(errbuf, RS_ERRBUF_SIZE, "%s: waiting for frames: %s", l->device, strerror(errno));
			return -1;
		}
		if (rc == 0 && !req)
			return 0;
	}
	l->fn = fn;
	l->ctx = ctx;
	l->stopped = false;
	int n = pcap_dispatch(l->pcap, max > 0 ? max : -1, on_frame, (u_char *)l);
	if (n == PCAP_ERROR_BREAK)
		return l->stopped ? 1 : 0; /* the callback asked to stop after a frame */
	if (n < 0) {
		snprintf(errbuf, RS_ERRBUF_SIZE, "%s: capture failed: %s", l->device, pcap_geterr(l->pcap));
		return -1;
	}
	return n;
}

bool rs_live_stats(struct rs_live_handle *l, struct rs_live_stats *st, char errbuf[RS_ERRBUF_SIZE])
{
	struct pcap_stat ps;
	st->captured = l->frame_no;
	if (pcap_stats(l->pcap, &ps) != 0) {
		snprintf(errbuf, RS_ERRBUF_SIZE, "%s: no statistics: %s", l->device, pcap_geterr(l->pcap));
		st->received = st->dropped = st->ifdropped = 0;
		return false;
	}
	st->received = ps.ps_recv;
	st->dropped = ps.ps_drop;
	st->ifdropped = ps.ps_ifdrop;
	return true;
}

int rs_live_datalink(const struct rs_live_handle *l)
{
	return pcap_datalink(l->pcap);
}

const char *rs_live_device(const struct rs_live_handle *l)
{
	return l->device;
}

int rs_live_snaplen(const struct rs_live_handle *l)
{
	return pcap_snapshot(l->pcap);
}

const char *rs_live_warning(const struct rs_live_handle *l)
{
	return l->warning[0] ? l->warning : NULL;
}

bool rs_live_nanoseconds(const struct rs_live_handle *l)
{
	return l->nano;
}

void rs_live_close(struct rs_live_handle *l)
{
	if (!l)
		return;
	if (l->pcap)
		pcap_close(l->pcap);
	free(l->device);
	free(l);
}
