/*
 * filter.c — the default capture filter: what the dissector calls RoCE,
 * said in BPF so the kernel drops everything else before it is copied.
 *
 * libpcap's `vlan` moves the offsets of everything after it in the
 * expression, to the end of it (parentheses do not undo it). So:
 *   - the alternatives nest: R or (vlan and (R or (vlan and R))), each
 *     `vlan` peeling one more tag before R is tried again;
 *   - the user's filter U cannot simply be ANDed at the end, where it would
 *     be read two tags deep even for untagged frames: it goes into every
 *     alternative next to R, where the offsets are the right ones;
 *   - unless U peels headers itself (vlan, mpls, pppoes, geneve): then U
 *     comes first and R is tried after U's own tags, as tcpdump users expect
 *     from "vlan 10".
 * On Linux live captures libpcap reads the outer tag from the kernel's
 * metadata (the tag was stripped from the frame); the same expression is
 * right there too.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/live.h"
#include "dissect/dissect.h"

/* Does the expression use a keyword that shifts the offsets after it? */
static bool peels_headers(const char *expr)
{
	static const char *const words[] = { "vlan", "mpls", "pppoes", "geneve" };
	for (const char *p = expr; *p;) {
		while (*p && !isalnum((unsigned char)*p))
			p++;
		const char *start = p;
		while (*p && (isalnum((unsigned char)*p) || *p == '_'))
			p++;
		for (size_t i = 0; i < sizeof words / sizeof *words; i++)
			if ((size_t)(p - start) == strlen(words[i]) && strncmp(start, words[i], strlen(words[i])) == 0)
				return true;
	}
	return false;
}

char *rs_capture_filter(bool all, const uint16_t *extra_ports, int n_extra, const char *user)
{
	bool have_user = user && *user;
	if (all)
		return have_user ? strdup(user) : NULL;

	char roce[512];
	int n = snprintf(roce, sizeof roce, "ether proto 0x%04x or udp dst port %u", RS_ETHERTYPE_ROCE,
			 RS_ROCE_UDP_PORT);
	for (int i = 0; i < n_extra && n > 0 && (size_t)n < sizeof roce; i++)
		n += snprintf(roce + n, sizeof roce - (size_t)n, " or udp dst port %u", extra_ports[i]);

	size_t len = 3 * (strlen(roce) + (have_user ? strlen(user) : 0)) + 128;
	char *f = malloc(len);
	if (!f)
		return NULL;
	if (!have_user)
		snprintf(f, len, "(%s) or (vlan and ((%s) or (vlan and (%s))))", roce, roce, roce);
	else if (peels_headers(user))
		snprintf(f, len, "(%s) and (%s)", user, roce);
	else
		snprintf(f, len, "((%s) and (%s)) or (vlan and (((%s) and (%s)) or (vlan and (%s) and (%s))))", roce,
			 user, roce, user, roce, user);
	return f;
}
