/* main.c — rocestat's command line (filled in as the dissector lands). */
#include <stdio.h>

int main(int argc, char **argv)
{
	(void)argv;
	if (argc < 2) {
		fprintf(stderr, "usage: rocestat [options] FILE...\n");
		return 2;
	}
	fprintf(stderr, "rocestat: nothing implemented yet\n");
	return 2;
}
