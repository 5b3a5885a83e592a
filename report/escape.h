/*
 * escape.h — outside names made safe for a terminal (escape.c).
 */
#ifndef RS_ESCAPE_H
#define RS_ESCAPE_H

#include <stdbool.h>

/* s with its control characters and non-UTF-8 bytes escaped (\n, \t, \r,
 * \xHH); a trailing newline kept if asked. g_free() the result. */
char *rs_escape_ctl(const char *s, bool keep_final_newline);
/* fprintf(stderr, ...) with the message escaped so, its final newline kept. */
__attribute__((format(printf, 1, 2))) void rs_eprintf(const char *fmt, ...);
#endif
