#include "rocegen.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const scenario_names[SC_COUNT] = {
	[SC_SEND] = "send",
	[SC_SEND_IMM] = "send-imm",
	[SC_WRITE] = "write",
	[SC_WRITE_IMM] = "write-imm",
	[SC_READ] = "read",
	[SC_ATOMIC_CAS] = "atomic-cas",
	[SC_ATOMIC_FAA] = "atomic-faa",
	[SC_MIXED] = "mixed",
	[SC_UD] = "ud",
	[SC_REJECT] = "reject",
	[SC_RNR] = "rnr",
	[SC_BAD_RKEY] = "bad-rkey",
	[SC_DISCONNECT] = "disconnect",
	[SC_RNR_EXHAUST] = "rnr-exhaust",
	[SC_DEAD_PEER] = "dead-peer",
	[SC_DISCONNECT_BOTH] = "disconnect-both",
};

double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct conn *die_conn;

/* A failure still leaves a truth file behind, marked "ok": false, with the
 * reason among its notes: a half-run scenario is evidence worth keeping. */
void die(const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	struct conn *c = die_conn;
	die_conn = NULL;	/* truth_write may itself die */
	if (c) {
		note(c, "FAILED: %s", msg);
		c->failed = true;
		truth_write(c);
	} else {
		fprintf(stderr, "rocegen: %s\n", msg);
	}
	exit(1);
}

/* Free-text remarks land in the truth file and on stderr, so a reader of
 * either can tell what the side was doing when something odd happened. */
void note(struct conn *c, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "rocegen %s: %s\n", c->side, msg);
	jb_item(&c->j_notes);
	jb_string(&c->j_notes, msg);
}

const char *scenario_name(enum scenario s)
{
	return s < SC_COUNT ? scenario_names[s] : "?";
}

bool scenario_from_name(const char *name, enum scenario *out)
{
	for (int i = 0; i < SC_COUNT; i++) {
		if (strcmp(name, scenario_names[i]) == 0) {
			*out = (enum scenario)i;
			return true;
		}
	}
	return false;
}

uint8_t pattern_byte(unsigned msg, size_t off)
{
	return (uint8_t)(0x41 + msg * 7 + off * 13);
}

void fill_pattern(uint8_t *p, size_t len, unsigned msg)
{
	for (size_t i = 0; i < len; i++)
		p[i] = pattern_byte(msg, i);
}

bool check_pattern(const uint8_t *p, size_t len, unsigned msg)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != pattern_byte(msg, i))
			return false;
	return true;
}
