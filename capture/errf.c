/*
 * errf.c — rs_errf(): snprintf through vsnprintf. Messages quote file and
 * device names of any length and are cut to fit the caller's buffer; GCC's
 * -Wformat-truncation cannot prove that harmless for a direct snprintf into
 * a fixed-size buffer and -Werror would stop the build.
 */
#include <stdarg.h>
#include <stdio.h>

#include "capture/source.h"

void rs_errf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}
