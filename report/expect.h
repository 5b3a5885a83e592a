/*
 * expect.h — --expect assertions over the analysis and their JUnit XML
 * (expect.c, which holds the grammar and the table of names).
 */
#ifndef RS_EXPECT_H
#define RS_EXPECT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "report/report.h"

struct rs_expect {
	char text[256];           /* as given */
	bool per_qp;
	uint32_t qp;
	int name;                 /* in expect.c's tables */
	int op;
	double want;
	/* rs_expect_parse's error: the 1-based column and what was wanted */
	unsigned err_col;
	char err[128];
	/* rs_expect_eval's */
	uint64_t value;
	bool ok;
};

/* False: e->err and e->err_col say what is wrong where. */
bool rs_expect_parse(struct rs_expect *e, const char *text);
/* Every name with what it counts and the JSON field it equals. */
void rs_expect_names(FILE *out);
/* Measure each and decide (the analysis finished first, as for a report). */
void rs_expect_eval(const struct rs_analyzer *a, const struct rs_report_opts *o, struct rs_expect *e, size_t n);
/* "rocestat: expect naks == 0: holds (measured 0)", one line each. */
void rs_expect_print(FILE *out, const struct rs_expect *e, size_t n);
/* The results as JUnit XML (one testsuite, a testcase each). */
int rs_expect_junit(FILE *out, const struct rs_expect *e, size_t n, const char *capture);

#endif
