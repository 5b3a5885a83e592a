/*
 * check_json.c — the streaming JSON writer (report/jsonw.c). Expected text
 * comes from RFC 8259 (section 7: which characters are escaped and how;
 * section 8.1: the text is UTF-8) and, for numbers, from what printf prints.
 * The writer gathers its output in a buffer: documents far larger than that
 * buffer, and single strings larger than it, must come out whole and in
 * order.
 */
#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/jsonw.h"
#include "tests/support/rstest.h"

static char *text;
static size_t text_len;
static FILE *out;
static struct rs_json j;

static void setup(void)
{
	out = open_memstream(&text, &text_len);
	ck_assert_ptr_nonnull(out);
	rs_json_init(&j, out, false);
}

static void teardown(void)
{
	fclose(out);
	free(text);
}

/* The document so far, written out. */
static const char *doc(void)
{
	rs_json_done(&j);
	fflush(out);
	return text;
}

/* A string, a list holding a number and two empty containers, then null,
 * true, false and a null string: the same members in both layouts. */
static void members_of_every_kind(void)
{
	rs_json_str(&j, "a", "x");
	rs_json_arr(&j, "list");
	rs_json_u64(&j, NULL, 1);
	rs_json_obj(&j, NULL);
	rs_json_end_obj(&j);  /* empty: no newline inside */
	rs_json_arr(&j, NULL);
	rs_json_end_arr(&j);
	rs_json_end_arr(&j);
	rs_json_null(&j, "n");
	rs_json_bool(&j, "t", true);
	rs_json_bool(&j, "f", false);
	rs_json_str(&j, "s", NULL);
}

START_TEST(nesting_and_indentation)
{
	rs_json_obj(&j, NULL);
	members_of_every_kind();
	rs_json_end_obj(&j);
	ck_assert_str_eq(doc(), "{\n"
				"  \"a\": \"x\",\n"
				"  \"list\": [\n"
				"    1,\n"
				"    {},\n"
				"    []\n"
				"  ],\n"
				"  \"n\": null,\n"
				"  \"t\": true,\n"
				"  \"f\": false,\n"
				"  \"s\": null\n"
				"}\n");
}
END_TEST

START_TEST(escapes_of_rfc_8259)
{
	/* Quote and reverse solidus always; the five short forms; every other
	 * control character as \u00XX; DEL and '/' need none. */
	rs_json_arr(&j, NULL);
	rs_json_str(&j, NULL, "q\"b\\n\nr\rt\tb\bf\f");
	rs_json_str(&j, NULL, "\x01\x1f\x7f/");
	rs_json_str(&j, NULL, "");
	rs_json_end_arr(&j);
	ck_assert_str_eq(doc(), "[\n"
				"  \"q\\\"b\\\\n\\nr\\rt\\tb\\u0008f\\u000c\",\n"
				"  \"\\u0001\\u001f\x7f/\",\n"
				"  \"\"\n"
				"]\n");
}
END_TEST

START_TEST(keys_are_escaped_too)
{
	rs_json_obj(&j, NULL);
	rs_json_u64(&j, "a\"b", 0);
	rs_json_end_obj(&j);
	ck_assert_str_eq(doc(), "{\n  \"a\\\"b\": 0\n}\n");
}
END_TEST

START_TEST(utf8_passes_and_invalid_bytes_become_replacement_characters)
{
	rs_json_arr(&j, NULL);
	rs_json_str(&j, NULL, "µs → ✗");          /* valid: as it is */
	rs_json_str(&j, NULL, "cap\xff\xfe.pcap");  /* a Latin-1 file name */
	rs_json_str(&j, NULL, "\xc3");              /* cut inside a sequence */
	rs_json_end_arr(&j);
	ck_assert_str_eq(doc(), "[\n"
				"  \"µs → ✗\",\n"
				"  \"cap\xef\xbf\xbd\xef\xbf\xbd.pcap\",\n"
				"  \"\xef\xbf\xbd\"\n"
				"]\n");
}
END_TEST

START_TEST(integers_as_printf_prints_them)
{
	static const uint64_t u[] = { 0, 9, 10, 99, 100, 4294967295u, 4294967296u, 10000000000000000000u, UINT64_MAX };
	static const int64_t s[] = { 0, -1, 1, -10, INT64_MAX, INT64_MIN, INT64_MIN + 1 };
	for (size_t i = 0; i < sizeof u / sizeof u[0]; i++) {
		char want[32];
		snprintf(want, sizeof want, "%" PRIu64 "\n", u[i]);
		teardown(); /* a document of its own */
		setup();
		rs_json_u64(&j, NULL, u[i]);
		ck_assert_str_eq(doc(), want);
	}
	for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) {
		char want[32];
		snprintf(want, sizeof want, "%" PRId64 "\n", s[i]);
		teardown();
		setup();
		rs_json_i64(&j, NULL, s[i]);
		ck_assert_str_eq(doc(), want);
	}
}
END_TEST

START_TEST(doubles_and_non_finite_values)
{
	rs_json_arr(&j, NULL);
	rs_json_dbl(&j, NULL, 0.1);
	rs_json_dbl(&j, NULL, 1e300);
	rs_json_dbl(&j, NULL, NAN);
	rs_json_dbl(&j, NULL, -INFINITY);
	rs_json_end_arr(&j);
	/* JSON has no NaN or infinity (RFC 8259 6): null. */
	ck_assert_str_eq(doc(), "[\n  0.1,\n  1e+300,\n  null,\n  null\n]\n");
}
END_TEST

START_TEST(documents_larger_than_the_buffer_come_out_whole)
{
	/* Many small members across buffer boundaries, a string longer than
	 * the buffer (written past it), and escapes straddling a boundary:
	 * the same text a member-at-a-time reference builds. */
	size_t big = 3 * RS_JSON_BUF + 17;
	char *s = malloc(big + 1);
	ck_assert_ptr_nonnull(s);
	for (size_t i = 0; i < big; i++)
		s[i] = (char)('a' + i % 26);
	s[big] = '\0';
	size_t cap = 8 * RS_JSON_BUF + 40 * 100000;
	char *want = malloc(cap), *w = want;
	ck_assert_ptr_nonnull(want);
	rs_json_arr(&j, NULL);
	w += sprintf(w, "[");
	for (uint64_t i = 0; i < 100000; i++) {
		rs_json_u64(&j, NULL, i * 7919);
		w += sprintf(w, "%s\n  %" PRIu64, i ? "," : "", i * 7919);
		if (i % 9973 == 0) {
			rs_json_str(&j, NULL, "\"\\\n");
			w += sprintf(w, ",\n  \"\\\"\\\\\\n\"");
		}
		if (i == 50000) {
			rs_json_str(&j, NULL, s);
			w += sprintf(w, ",\n  \"%s\"", s);
		}
	}
	rs_json_end_arr(&j);
	w += sprintf(w, "\n]\n");
	const char *got = doc();
	ck_assert_uint_eq(text_len, (size_t)(w - want));
	ck_assert_int_eq(memcmp(got, want, text_len), 0);
	free(s);
	free(want);
}
END_TEST

START_TEST(compact_is_the_document_without_whitespace)
{
	/* RFC 8259 allows whitespace only around structural characters: the
	 * compact form has none there, and keeps the text of strings (spaces,
	 * colons, commas, brackets, escapes) as it is. One line, then the
	 * newline that ends the document. */
	fclose(out);
	free(text);
	out = open_memstream(&text, &text_len);
	ck_assert_ptr_nonnull(out);
	rs_json_init(&j, out, true);
	rs_json_obj(&j, NULL);
	members_of_every_kind();
	rs_json_obj(&j, "o");
	rs_json_i64(&j, "neg", -5);
	rs_json_dbl(&j, "half", 0.5);
	rs_json_end_obj(&j);
	rs_json_str(&j, "key: with, [space]", "a, b: [c] {d}");
	rs_json_str(&j, "q", "\" \\\n\t");
	rs_json_end_obj(&j);
	ck_assert_str_eq(doc(), "{\"a\":\"x\",\"list\":[1,{},[]],\"n\":null,\"t\":true,\"f\":false,\"s\":null,"
				"\"o\":{\"neg\":-5,\"half\":0.5},\"key: with, [space]\":\"a, b: [c] {d}\","
				"\"q\":\"\\\" \\\\\\n\\t\"}\n");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("json");
	TCase *t = tcase_create("writer");
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, nesting_and_indentation);
	tcase_add_test(t, escapes_of_rfc_8259);
	tcase_add_test(t, keys_are_escaped_too);
	tcase_add_test(t, utf8_passes_and_invalid_bytes_become_replacement_characters);
	tcase_add_test(t, integers_as_printf_prints_them);
	tcase_add_test(t, doubles_and_non_finite_values);
	tcase_add_test(t, documents_larger_than_the_buffer_come_out_whole);
	tcase_add_test(t, compact_is_the_document_without_whitespace);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return rt_run_suite(suite());
}
