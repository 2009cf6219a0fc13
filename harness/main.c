/* main.c - the kpair command line: subcommand table, option parsing, exit codes */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot.h"
#include "config.h"
#include "kernel.h"
#include "run.h"
#include "util.h"

#define EXIT_USAGE 2

static __attribute__((noreturn, format(printf, 1, 2))) void die(const char *fmt, ...)
{
	va_list ap;

	fputs("kpair: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_USAGE);
}

static void usage(FILE *f)
{
	fputs("usage: kpair <command> [options]\n"
	      "\n"
	      "  kernel fetch debian:<abi>-<flavour>   fetch a packaged kernel into images/kernels/\n"
	      "  kernel list                           kernels in the store\n"
	      "  run JOB --kernel ID [--set S.K=V]...  boot, run the job's workload, write results/<run-id>/\n"
	      "        [-o DIR] [--keep-disk] [--gzip-initramfs] [-q]\n"
	      "  help [job|target|workloads|status]    this text, or a reference\n"
	      "\n"
	      "exit status of run: 0 ok, 2 usage or bad job, 3 setup failed, 10-16 a failed run\n"
	      "(kpair help status)\n", f);
}

static void help_status(void)
{
	int i;

	printf("%-18s %-5s %s\n", "STATUS", "EXIT", "MEANING");
	for (i = 0; i < RUN_NSTATUS; i++)
		printf("%-18s %-5d %s\n", run_statuses[i].name, run_statuses[i].exit_code,
		       run_statuses[i].help);
	printf("%-18s %-5d %s\n", "(usage)", EXIT_USAGE, "bad command line, job file or kernel id");
}

static void help_workloads(void)
{
	const struct workload *const *w;
	int i;

	for (w = workloads; *w; w++) {
		printf("%s: %s\n", (*w)->name, (*w)->help);
		for (i = 0; (*w)->params[i].name; i++) {
			const struct wl_param *p = &(*w)->params[i];

			printf("  %-14s %-8s default %-8s %s\n", p->name, unit_name(p->kind),
			       p->def, p->help);
		}
	}
}

static int cmd_help(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";

	if (!strcmp(what, "job"))
		opts_help(job_opts), printf("[params]\n  checked against the workload (kpair help workloads)\n");
	else if (!strcmp(what, "target"))
		opts_help(target_opts);
	else if (!strcmp(what, "workloads"))
		help_workloads();
	else if (!strcmp(what, "status"))
		help_status();
	else
		usage(stdout);
	return 0;
}

static int cmd_kernel(int argc, char **argv)
{
	struct kernel k;
	int ret;

	if (argc < 2)
		die("kernel: expected fetch or list");
	if (!strcmp(argv[1], "list"))
		return kernel_list() < 0;
	if (strcmp(argv[1], "fetch") || argc != 3)
		die("kernel: usage: kpair kernel fetch debian:<abi>-<flavour> | kpair kernel list");
	kernel_init(&k);
	ret = kernel_fetch(argv[2], &k);
	if (!ret)
		printf("%s\n", k.id);
	kernel_release(&k);
	return ret < 0 ? 3 : 0;
}

static int cmd_run(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "kernel", required_argument, NULL, 'k' },
		{ "set", required_argument, NULL, 's' },
		{ "output", required_argument, NULL, 'o' },
		{ "keep-disk", no_argument, NULL, 'K' },
		{ "gzip-initramfs", no_argument, NULL, 'z' },
		{ "quiet", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	struct run_opts o = { 0 };
	char **sets = calloc(argc, sizeof(char *));
	int c, ret;

	if (!sets)
		die("out of memory");
	optind = 1;
	while ((c = getopt_long(argc, argv, "k:s:o:q", lopts, NULL)) != -1) {
		switch (c) {
		case 'k': o.kernel = optarg; break;
		case 's': sets[o.nset++] = optarg; break;
		case 'o': o.out_dir = optarg; break;
		case 'K': o.keep_disk = 1; break;
		case 'z': o.gzip_initramfs = 1; break;
		case 'q': util_quiet = 1; break;
		default: die("run: see kpair help");
		}
	}
	if (optind != argc - 1)
		die("run: expected one job file");
	if (!o.kernel)
		die("run: --kernel ID is required (kpair kernel list)");
	o.job_path = argv[optind];
	o.sets = sets;
	ret = run_one(&o);
	free(sets);
	if (ret < 0)
		return EXIT_USAGE;
	return run_statuses[ret].exit_code;
}

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} commands[] = {
	{ "run", cmd_run },
	{ "kernel", cmd_kernel },
	{ "help", cmd_help },
};

int main(int argc, char **argv)
{
	size_t i;

	kpair_set_root(argv[0]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return cmd_help(1, argv);
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	usage(stderr);
	die("unknown command '%s'", argv[1]);
}
