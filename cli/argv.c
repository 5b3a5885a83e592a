/*
 * argv.c — tcpdump's way of giving a short option its value in the same
 * word (-c5, -s0, -j1, -nrFILE), which GLib's parser does not take: it
 * reads "-c5" as the options -c and -5. Before GLib parses the command
 * line, such a word is cut in two at the first option that takes a value:
 * "-nrFILE" becomes "-nr" "FILE". Which options take one comes from the
 * option table itself (options.c), so the two cannot disagree. A word that
 * is an option's value (the word after "-w" or "--output") and everything
 * after "--" are left as they are.
 */
#include <glib.h>
#include <string.h>

#include "cli/cli.h"

/* Does long option `word` ("--name", no "=") take the next word as its value? */
static bool long_takes_value(const char *word, const char *const *long_with_value)
{
	for (const char *const *n = long_with_value; *n; n++)
		if (strcmp(word + 2, *n) == 0)
			return true;
	return false;
}

char **rs_cli_split_values(int argc, char **argv, const char *short_with_value, const char *const *long_with_value)
{
	GPtrArray *out = g_ptr_array_new();
	bool value_next = false, options_end = false;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (i == 0 || value_next || options_end || a[0] != '-' || a[1] == '\0') {
			g_ptr_array_add(out, g_strdup(a));
			value_next = false;
			continue;
		}
		if (a[1] == '-') {
			options_end = a[2] == '\0';
			value_next = !options_end && !strchr(a, '=') && long_takes_value(a, long_with_value);
			g_ptr_array_add(out, g_strdup(a));
			continue;
		}
		size_t j = 1;
		while (a[j] && !strchr(short_with_value, a[j]))
			j++;
		if (a[j] && a[j + 1]) { /* -cN: "-c" and "N" */
			g_ptr_array_add(out, g_strndup(a, j + 1));
			g_ptr_array_add(out, g_strdup(a + j + 1));
		} else {
			value_next = a[j] != '\0'; /* "-nr" FILE */
			g_ptr_array_add(out, g_strdup(a));
		}
	}
	g_ptr_array_add(out, NULL);
	return (char **)g_ptr_array_free(out, FALSE);
}
