/*
 * views.h — the per-frame views: one frame at a time, as the dissector
 * decoded it (struct rs_frame) and, where they say how frames belong
 * together, as the analyzer judged it (struct rs_verdict, from
 * rs_analyzer_add_v): `--fields` (fields.c) and the classroom walkthrough
 * `--walk` / `-V` (walk*.c). Each is a sink (views/sink.h) the command
 * line's run loops feed. A view prints; it concludes nothing itself.
 */
#ifndef RS_VIEWS_H
#define RS_VIEWS_H

#include <stdbool.h>
#include <stdio.h>

#include "views/sink.h"
#include "capture/writer.h"

struct rs_ulp_map; /* analyzer/analyzer.h */

struct rs_fields_opts {
	/* After the header columns, the analyzer's verdict on each frame
	 * (--verdicts; fields.c's table names them). */
	bool verdicts;
	/* --ulp PORT=NAME, for the verdicts' ulp column and the modules' columns. */
	const struct rs_ulp_map *ulp;
	unsigned n_ulp;
	/* --qp: only the frames of that QP's connection (rs_verdict_on_qp);
	 * -1: every frame. */
	int64_t qp;
	int64_t conn;  /* --conn: only that CM connection's frames; -1: every frame */
	/* -e NAME...: only these columns, in this order (NULL-terminated; NULL:
	 * every column). A verdict column brings the analysis without --verdicts. */
	char **select;
};

#define RS_FIELDS_MAX_SELECT 64
/* The index of --fields column NAME (the verdict columns too); -1: none. */
int rs_fields_column(const char *name);

/* The --fields CSV writer. */
struct rs_sink rs_fields_sink(FILE *out, const struct rs_fields_opts *o);
/* With --qp or --conn: how many frames of that QP or connection the
 * --fields (or --walk) sink `s` has shown. */
uint64_t rs_fields_picked(const struct rs_sink *s);
uint64_t rs_walk_picked(const struct rs_sink *s);
/* The columns the walkthrough is laid out for (80 at least; 0: its default, 100). */
void rs_walk_set_width(const struct rs_sink *s, int width);
/* The --walk classroom view; `color`: ANSI colours; `qp` as in
 * rs_fields_opts. */
struct rs_sink rs_walk_sink(FILE *out, bool color, int64_t qp, int64_t conn);
/* The same, with --ulp's names (n_ulp of them, at most 8 used). */
struct rs_sink rs_walk_sink_ulp(FILE *out, bool color, int64_t qp, int64_t conn, const struct rs_ulp_map *ulp,
				 unsigned n_ulp);
/* --annotate OUT.pcapng: every frame, unchanged, with the analyzer's
 * verdict on it as a pcapng packet comment (annotate.c). The file is
 * complete once rs_annotate_close() returned true; false: errbuf says why. */
struct rs_sink rs_annotate_sink(const char *path);
bool rs_annotate_close(const struct rs_sink *s, char errbuf[RS_ERRBUF_SIZE]);

#endif
