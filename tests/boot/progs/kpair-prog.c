/*
 * kpair-prog.c - a user program for tests/boot/t-44-command.t, built static by
 * the test. argv[1] picks what it does:
 *   metrics A B  the output contract: metrics with and without a direction,
 *                one metric twice, its argc, whether its cwd is KPAIR_SCRATCH
 *                and writable
 *   exit3        a metric, a complaint on stderr, exit status 3
 *   garbage      a kpair-metric line whose value is not a number
 *   rofs         the errno of creating a file at / (host-command: EROFS, 30)
 *   score N      score (points, higher is better) and cost (widgets, lower) near N, with
 *                up to 1 % of noise from the clock; plain N (things: no direction)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	char cwd[256];
	FILE *f;

	if (!strcmp(mode, "metrics")) {
		printf("kpair-prog: the program's own chatter, left alone\n");
		printf("kpair-metric loops 1000 ops\n");
		printf("kpair-metric lat_us 12.5 us\n");
		printf("kpair-metric score 42 points higher\n");
		printf("kpair-metric cost 7 widgets lower\n");
		printf("kpair-metric per_iter 1 s\nkpair-metric per_iter 2 s\n");
		printf("kpair-metric argc %d count\n", argc);
		printf("kpair-metric arg2_is_A %d bool\n", argc > 2 && !strcmp(argv[2], "A"));
		f = fopen("written-by-prog", "w");
		printf("kpair-metric cwd_writable %d bool\n", f && fputs("x\n", f) >= 0 && !fclose(f));
		printf("kpair-metric cwd_is_scratch %d bool\n", getcwd(cwd, sizeof(cwd)) &&
		       getenv("KPAIR_SCRATCH") && !strcmp(cwd, getenv("KPAIR_SCRATCH")));
		return 0;
	}
	if (!strcmp(mode, "exit3")) {
		printf("kpair-metric early 1 s\n");
		fflush(stdout);
		fprintf(stderr, "kpair-prog: starting\nkpair-prog: giving up: no widgets\n");
		return 3;
	}
	if (!strcmp(mode, "garbage")) {
		printf("kpair-metric fine 1 s\nkpair-metric broken notanumber s\n");
		return 0;
	}
	if (!strcmp(mode, "score") && argc > 2) {
		struct timespec ts;
		double n = atof(argv[2]), j;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		j = 1 + (ts.tv_nsec % 1000) / 1e5;
		printf("kpair-metric score %.4f points higher\n", n * j);
		printf("kpair-metric cost %.4f widgets lower\n", n * j);
		printf("kpair-metric plain %.4f things\n", n * j);
		return 0;
	}
	if (!strcmp(mode, "rofs")) {
		int fd = open("/kpair-rofs-probe", O_WRONLY | O_CREAT, 0644);

		printf("kpair-metric root_write_errno %d errno\n", fd < 0 ? errno : 0);
		return 0;
	}
	fprintf(stderr, "usage: kpair-prog metrics|exit3|garbage|rofs\n");
	return 2;
}
