/*
 * result.h — the analysis as its readers see it: report/ and views/
 * include this and analyzer.h, never the analyzer's other headers, whose
 * layouts (struct rs_analyzer, struct rs_flow and their parts) are the
 * analyzer's own and change with it. What is here is plain data and
 * functions over handles the readers cannot look into.
 *
 * The reports read an analysis that rs_analyzer_finish() finished; they
 * change nothing in it. The live view reads one that is still running.
 */
#ifndef RS_ANALYZER_RESULT_H
#define RS_ANALYZER_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyzer/analyzer.h"

#define RS_PSN_MASK 0xFFFFFFu

/* Serial-number distance on the 24-bit PSN circle: a - b in [-2^23, 2^23). */
static inline int32_t rs_psn_diff(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 8) >> 8;
}

#endif
