/* kernel-cmd.c - the `kpair kernel` subcommands: fetch, list, build, pair, import */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "gitsrc.h"
#include "import.h"
#include "kernel.h"
#include "kernel-cmd.h"
#include "sides.h"
#include "util.h"

#define EXIT_USAGE 2
#define EXIT_SETUP 3

/*
 * kernel build / kernel pair: --source S [--rev REV] [--config FILE|debian:ABI]
 * [--fragment F] [--patch P]... [--target T] [-j N] [--config-only]
 */
static int kernel_build_cmd(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "source", required_argument, NULL, 'S' },
		{ "rev", required_argument, NULL, 'R' },
		{ "config", required_argument, NULL, 'c' },
		{ "fragment", required_argument, NULL, 'f' },
		{ "config-only", no_argument, NULL, 'C' },
		{ "patch", required_argument, NULL, 'p' },
		{ "target", required_argument, NULL, 't' },
		{ "jobs", required_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	struct build_spec spec = { .target = "x86_64", .jobs = 2 };
	int pair = !strcmp(argv[0], "pair"), c, i, ret = 0;
	char *ids[2] = { NULL, NULL }, *paths[BUILD_MAX_PATCHES], *config = NULL, *sha = NULL;
	const char *rev = NULL, *cfgspec = NULL;
	struct gitsrc g;
	double t0;

	gitsrc_init(&g);
	optind = 1;
	while ((c = getopt_long(argc, argv, "j:", lopts, NULL)) != -1) {
		switch (c) {
		case 'S': spec.source = optarg; break;
		case 'R': rev = optarg; break;
		case 'c': cfgspec = optarg; break;
		case 'f': spec.fragment = optarg; break;
		case 'C': spec.config_only = 1; break;
		case 't': spec.target = optarg; break;
		case 'j': spec.jobs = atoi(optarg) > 0 ? atoi(optarg) : 1; break;
		case 'p':
			if (spec.npatches >= BUILD_MAX_PATCHES) {
				ret = error("at most %d patches", BUILD_MAX_PATCHES);
				goto out_usage;
			}
			/* patch(1) runs in the source tree: make the path absolute */
			paths[spec.npatches] = realpath(optarg, NULL);
			if (!paths[spec.npatches]) {
				ret = error("patch '%s': %s", optarg, strerror(errno));
				goto out_usage;
			}
			spec.patches[spec.npatches] = paths[spec.npatches];
			spec.npatches++;
			break;
		default:
			ret = error("kernel %s: see kpair help", argv[0]);
			goto out_usage;
		}
	}
	if (!spec.source || optind != argc) {
		ret = error("kernel %s: --source linux-source-6.1, a directory or a git tree is "
			    "required", argv[0]);
		goto out_usage;
	}
	if (pair && (!spec.npatches || rev)) {
		ret = error("kernel pair: at least one --patch, and no --rev (ab --source DIR "
			    "--stock REV --patched REV builds two revisions)");
		goto out_usage;
	}
	if (cfgspec && config_resolve(cfgspec, &config) < 0)
		goto out_usage;
	spec.config = config;
	if (!rev && strchr(spec.source, '/') && gitsrc_is_repo(spec.source)) {
		/* a git tree is never built in place: its HEAD commit, in kpair's checkout */
		rev = "HEAD";
		info("build: '%s' is a git tree: building its HEAD commit (--rev REV for another)",
		     spec.source);
	}
	if (rev) {
		/* a git revision: resolved, and the config checked, before anything is built */
		if (gitsrc_open(&g, spec.source) < 0 || gitsrc_resolve(&g, rev, &sha) < 0 ||
		    (config && build_config_fits(config, spec.target) < 0))
			goto out_usage;
		spec.git = &g;
		spec.rev = rev;
		spec.sha = sha;
	}
	if (pair) {
		struct build_spec stock = spec;

		stock.npatches = 0;
		t0 = mono_now();
		ret = kernel_build(&stock, &ids[0]);
		if (!ret)
			printf("stock   %s (%.1f s)\n", ids[0], mono_now() - t0);
	}
	t0 = mono_now();
	if (!ret)
		ret = kernel_build(&spec, &ids[1]);
	if (!ret && ids[1])
		printf("%s%s (%.1f s)\n", pair ? "patched " : "", ids[1], mono_now() - t0);
	ret = ret < 0 ? EXIT_SETUP : 0;
	goto out;
out_usage:
	ret = EXIT_USAGE;
out:
	for (i = 0; i < spec.npatches; i++)
		free(paths[i]);
	free(ids[0]);
	free(ids[1]);
	free(config);
	free(sha);
	gitsrc_release(&g);
	return ret;
}

static int kernel_fetch_cmd(int argc, char **argv)
{
	struct kernel k;
	int ret;

	if (argc != 2)
		return -2;
	kernel_init(&k);
	ret = kernel_fetch(argv[1], &k);
	if (!ret)
		printf("%s\n", k.id);
	kernel_release(&k);
	return ret < 0 ? EXIT_SETUP : 0;
}

static int kernel_list_cmd(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return kernel_list() < 0;
}

/* kpair kernel NAME ...: argv[0] is NAME; an exit code, or -2 for the usage line */
static const struct {
	const char *name;
	int (*cmd)(int argc, char **argv);
} subcmds[] = {
	{ "fetch", kernel_fetch_cmd },
	{ "list", kernel_list_cmd },
	{ "build", kernel_build_cmd },
	{ "pair", kernel_build_cmd },
	{ "import", kernel_import_cmd },
};

int cmd_kernel(int argc, char **argv)
{
	size_t i;
	int ret = -2;

	if (argc < 2) {
		error("kernel: expected fetch, list, build, pair or import");
		return EXIT_USAGE;
	}
	for (i = 0; i < ARRAY_SIZE(subcmds); i++)
		if (!strcmp(argv[1], subcmds[i].name)) {
			ret = subcmds[i].cmd(argc - 1, argv + 1);
			break;
		}
	if (ret == -2) {
		error("kernel: usage: kpair kernel fetch debian:<abi>-<flavour> | list | build | "
		      "pair | import");
		return EXIT_USAGE;
	}
	return ret;
}
