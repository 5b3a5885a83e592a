/*
 * cli.h — the command line: options, and the per-frame consumers ("sinks")
 * that the run loop feeds (CSV fields, the classroom walkthrough, ...).
 */
#ifndef RS_CLI_H
#define RS_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "capture/source.h"
#include "dissect/dissect.h"

/* Exit codes (also in the man page). */
enum {
	RS_EXIT_OK = 0,        /* everything read, nothing to report */
	RS_EXIT_ANOMALIES = 1, /* everything read; anomalies or undecodable frames found */
	RS_EXIT_USAGE = 2,     /* bad option, argument or filter */
	RS_EXIT_INPUT = 3,     /* an input could not be (fully) read; results up to there were written */
};

struct rs_cli_opts {
	char **files;      /* capture files, NULL-terminated */
	char *filter;      /* BPF expression from the trailing arguments, or NULL */

	bool fields;       /* --fields */
	bool walk;         /* --walk / -V */
	bool no_resolve;   /* -n */
	int64_t count;     /* -c: stop after this many RoCE frames (0 = all) */
	uint64_t first_frame, last_frame; /* --frames A-B (0 = open) */
	int color;         /* 1 on, 0 off (resolved from --color=auto|always|never) */

	struct rs_dissect_opts dissect;
};

/* A consumer of decoded frames. Return false from `frame` to stop early. */
struct rs_sink {
	void *ctx;
	void (*begin_file)(void *ctx, const char *name, int dlt);
	bool (*frame)(void *ctx, const struct rs_packet *pkt, const struct rs_frame *f);
	void (*end_file)(void *ctx, const char *name);
};

int rs_cli_parse(int argc, char **argv, struct rs_cli_opts *o);
void rs_cli_free(struct rs_cli_opts *o);

/* Read every file in o->files through the sink. Returns an RS_EXIT_ code. */
int rs_run_files(const struct rs_cli_opts *o, const struct rs_sink *sink);

/* The --fields CSV writer. */
struct rs_sink rs_fields_sink(FILE *out, const struct rs_cli_opts *o);
/* The --walk classroom view. */
struct rs_sink rs_walk_sink(FILE *out, const struct rs_cli_opts *o);

#endif
