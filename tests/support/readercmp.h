/*
 * readercmp.h — a capture file read by libpcap and by rocestat's own
 * readers (capture/reader.h) in lockstep, for the reader tests
 * (check_reader.c, check_pcapng.c).
 */
#ifndef RS_TEST_READERCMP_H
#define RS_TEST_READERCMP_H

#include <stddef.h>
#include <stdint.h>

#include "capture/source.h"

uint8_t *rt_slurp(const char *path, size_t *len);
void rt_spill(const char *path, const uint8_t *b, size_t len);

/* Open `path` with ROCESTAT_READER set to `reader` (NULL: unset, the
 * default choice). */
struct rs_source *rt_open_with(const char *reader, const char *path, const char *filter, char *err);

/* Both readers in lockstep to the end or the first error: the same frame
 * numbers, lengths, the record's own length, nanosecond timestamps, link
 * types and bytes, the same end, the same error message. `want` is the
 * reader the default must pick. Returns the number of frames. */
uint64_t rt_same_frames(const char *path, const char *filter, const char *want, const char *what);

/* The same for `b` read from a pipe (a FIFO under tmpdir, fed by a child
 * process, one for each reader). */
uint64_t rt_same_frames_piped(const char *tmpdir, const uint8_t *b, size_t len, const char *want, const char *what);

#endif
