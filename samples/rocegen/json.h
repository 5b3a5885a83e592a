/* A growable text buffer with just enough JSON help for the ground truth. */
#ifndef ROCEGEN_JSON_H
#define ROCEGEN_JSON_H

#include <stddef.h>
#include <stdint.h>

struct jbuf {
	char *s;
	size_t len;
	size_t cap;
	int items;	/* elements so far in the array being built; drives commas */
};

void jb_printf(struct jbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Append a JSON string literal (quotes and escapes included). */
void jb_string(struct jbuf *b, const char *s);
/* Append a JSON string of lowercase hex digits for raw bytes. */
void jb_hex(struct jbuf *b, const void *data, size_t len);
/* 64-bit values travel as "0x%016x" strings: JSON numbers lose precision
 * above 2^53, and addresses or atomic operands may exceed it. */
void jb_u64(struct jbuf *b, uint64_t v);
/* Start the next element of an array: a comma unless it is the first. */
void jb_item(struct jbuf *b);
void jb_free(struct jbuf *b);

#endif
