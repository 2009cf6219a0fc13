/* main.c - the kpair command line: subcommand table, option parsing, exit codes */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab.h"
#include "bisect.h"
#include "backends/vm.h"
#include "kernels/build.h"
#include "compare.h"
#include "config.h"
#include "kernels/kernel.h"
#include "kernels/kernel-cmd.h"
#include "kernels/sides.h"
#include "mail.h"
#include "nightly.h"
#include "exports/export.h"
#include "run.h"
#include "summary.h"
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
	      "  kernel build --source linux-source-6.1|DIR [--rev REV] [--patch P]...\n"
	      "        [--config FILE|debian:ABI | --fragment F] [--target T] [-j N] [--config-only]\n"
	      "                                      build a kernel (cached by source+config+patches);\n"
	      "                                      a git DIR builds REV (default HEAD) in kpair's own\n"
	      "                                      checkout; --config: a whole .config\n"
	      "  kernel pair --source S --patch P...   stock and patched, sharing objects\n"
	      "  kernel import BUILD_DIR | --image F --config F [--modules DIR]\n"
	      "                                      a kernel you built, into the store as it is\n"
	      "  run JOB --kernel ID [--set S.K=V]...  boot, run the job's workload, write results/<run-id>/\n"
	      "        JOB may be fio:FILE: your own fio job file, here and in ab, calibrate, ...\n"
	      "        [-o DIR] [--keep-disk] [--gzip-initramfs|--plain-initramfs] [-q]\n"
	      "        (no --kernel: the target's default kernel)\n"
	      "        [--profile]   one profiled run: instructions per kernel function (profile.json)\n"
	      "  profile JOB --kernel ID ...         the same as run --profile\n"
	      "        [--backend qemu|libvirt [--uri U]]   a QEMU child, or a transient libvirt domain\n",
	      f);
	fputs(backend_usage(), f);
	fputs("  ab JOB --stock K1 --patched K2 [-n RUNS] [--until-ci PCT --max-runs N] [--seed S]\n"
	      "        [--source GIT_DIR [--config FILE|debian:ABI]]   K1, K2: git revisions, built\n"
	      "        [--set S.K=V] [--stock-set S.K=V] [--patched-set S.K=V] [--threshold PCT]\n"
	      "        [--retries N] [-j N] [-o DIR]  interleaved A/B, comparison.json + report.html\n"
	      "        [--metric NAME]   the primary metric: tested alone (job.metric, the claim's)\n"
	      "        [--warmup N]   boots before the first measured run, not compared (default 1)\n"
	      "        [--profile]   then one profiled run a side: where the instructions went\n"
	      "        [--backend qemu|libvirt [--uri U]]\n", f);
	fputs(backend_usage(), f);
	fputs("        [--hosts URI1,URI2,... [--mix-hosts]]   fan the pairs out over libvirt hosts\n"
	      "  calibrate JOB --kernel K [-n RUNS]    A/A on one kernel: noise (CV) and runs needed\n"
	      "  compare A B [--json] [--metric NAME]  two result sets (run or A/B directories)\n"
	      "  compare --metric NAME [--higher-is-better] A.txt B.txt [--json]   plain samples\n"
	      "  report DIR                            rewrite comparison.json and report.html of DIR\n"
	      "  report --mail DIR                     DIR/mail.txt: the A/B, bisect or night as a message\n"
	      "                                      for a kernel list (table with CIs, commits, job, reproduce)\n"
	      "  resume DIR                            continue an interrupted ab or calibrate\n"
	      "  nightly FILE [--date YYYY-MM-DD] [--set S.K=V]...   jobs x targets against the\n"
	      "        [--hosts URI1,URI2,...]  baseline: results/nightly/<date>/, junit.xml,\n"
	      "        index.html (exit 0/1/2)\n"
	      "        [--backend qemu|libvirt|lava [--lava-url URL --lava-token-file F ...]]\n"
	      "  bisect JOB --source S --series PATCHES/series --metric NAME [--threshold PCT]\n"
	      "        [-n RUNS] [--max-runs N] [--seed S] [--set S.K=V] [-o DIR]   first bad patch\n"
	      "        (exit 0 found, 1 no regression, 3 failed, 4 unresolved or refused at this noise)\n"
	      "  bisect JOB --source GIT_DIR --good REV --bad REV --metric NAME [--config F]\n"
	      "        [...]                          first bad commit of good..bad\n"
	      "  export lava JOB [--kernel K] [--set S.K=V] -o DIR   a LAVA job + device dictionary\n"
	      "  export kcidb DIR -o FILE              a run or A/B directory as KCIDB v5 JSON\n"
	      "  help [job|target|workloads|status]    this text, or a reference\n"
	      "\n"
	      "exit status of run: 0 ok, 2 usage or bad job, 3 setup failed, 10-17 a failed run\n"
	      "exit status of ab, calibrate, compare: 0 no metric regressed, 1 a metric regressed\n"
	      "(or patched fails more runs), 2 usage, 3 runs failed beyond the retries, or the\n"
	      "patched guest failed runs the stock one did not\n"
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

static const char *check_backend(const char *name)
{
	if (!backend_find(name))
		die("--backend '%s': %s", name, backend_names_text());
	return name;
}

/* one of a backend's own options (--lava-url ...), given to it */
static void backend_opt(int c, const char *arg)
{
	if (backend_option(c, arg) < 0)
		exit(EXIT_USAGE);
}

/* the backend's check before any run (the lab answers, takes the token, ...) */
static void backend_check(const char *backend)
{
	const struct backend *b = backend_find(backend);

	if (b && b->preflight && b->preflight() < 0)
		exit(EXIT_USAGE);
}

/* a command's getopt table @base with every backend's options after it, in @out */
static const struct option *with_backend_opts(const struct option *base, struct option *out,
					      int max)
{
	int n;

	for (n = 0; base[n].name; n++)
		out[n] = base[n];
	backend_getopt(out, &n, max);
	return out;
}

#define BACKEND_OPT_CASES BACKEND_OPT_BASE ... BACKEND_OPT_BASE + 32 * 8 - 1

static int cmd_run(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "kernel", required_argument, NULL, 'k' },
		{ "set", required_argument, NULL, 's' },
		{ "output", required_argument, NULL, 'o' },
		{ "keep-disk", no_argument, NULL, 'K' },
		{ "gzip-initramfs", no_argument, NULL, 'z' },
		{ "plain-initramfs", no_argument, NULL, 'P' },
		{ "backend", required_argument, NULL, 'V' },
		{ "uri", required_argument, NULL, 'U' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "profile", no_argument, NULL, 'R' },
		{ NULL, 0, NULL, 0 },
	};
	struct option all[64];
	const struct option *opts;
	struct run_opts o = { .profile = !strcmp(argv[0], "profile") ? "insns" : NULL };
	char **sets = calloc(argc, sizeof(char *));
	int c, ret;

	if (!sets)
		die("out of memory");
	optind = 1;
	opts = with_backend_opts(lopts, all, (int)ARRAY_SIZE(all));
	while ((c = getopt_long(argc, argv, "k:s:o:q", opts, NULL)) != -1) {
		switch (c) {
		case 'k': o.kernel = optarg; break;
		case 's': sets[o.nset++] = optarg; break;
		case 'o': o.out_dir = optarg; break;
		case 'K': o.keep_disk = 1; break;
		case 'z': o.initramfs = "gzip"; break;
		case 'P': o.initramfs = "plain"; break;
		case 'V': o.backend = check_backend(optarg); break;
		case 'U': o.dest = optarg; break;
		case 'R': o.profile = "insns"; break;
		case BACKEND_OPT_CASES: backend_opt(c, optarg); break;
		case 'q':
			util_quiet = 1;
			o.brief = 1;
			break;
		default: die("%s: see kpair help", argv[0]);
		}
	}
	if (optind != argc - 1)
		die("%s: expected one job file", argv[0]);
	backend_check(o.backend);
	/* no --kernel: run_one takes the target's default kernel */
	o.job_path = argv[optind];
	o.sets = sets;
	ret = run_one(&o);
	free(sets);
	if (ret < 0)
		return EXIT_USAGE;
	return run_statuses[ret].exit_code;
}

static double parse_pct(const char *s, const char *opt)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || (*end && strcmp(end, "%")) || v <= 0 || v >= 100)
		die("%s: '%s': expected a percentage between 0 and 100", opt, s);
	return v;
}

static int parse_int(const char *s, const char *opt, int min, int max)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (end == s || *end || v < min || v > max)
		die("%s: '%s': expected a whole number from %d to %d", opt, s, min, max);
	return (int)v;
}

static void add_set(char **sets, int *n, const char *v)
{
	if (*n >= AB_MAX_SETS)
		die("too many --set options (at most %d)", AB_MAX_SETS);
	sets[(*n)++] = xstrdup(v);
}

static int cmd_ab(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "stock", required_argument, NULL, 'A' },
		{ "patched", required_argument, NULL, 'B' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "runs", required_argument, NULL, 'n' },
		{ "until-ci", required_argument, NULL, 'u' },
		{ "max-runs", required_argument, NULL, 'm' },
		{ "seed", required_argument, NULL, 'S' },
		{ "set", required_argument, NULL, 's' },
		{ "stock-set", required_argument, NULL, 'a' },
		{ "patched-set", required_argument, NULL, 'b' },
		{ "threshold", required_argument, NULL, 't' },
		{ "retries", required_argument, NULL, 'r' },
		{ "warmup", required_argument, NULL, 'W' },
		{ "output", required_argument, NULL, 'o' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "backend", required_argument, NULL, 'V' },
		{ "uri", required_argument, NULL, 'U' },
		{ "hosts", required_argument, NULL, 'H' },
		{ "mix-hosts", no_argument, NULL, 'X' },
		{ "profile", no_argument, NULL, 'F' },
		{ "source", required_argument, NULL, 'G' },
		{ "config", required_argument, NULL, 'c' },
		{ "metric", required_argument, NULL, 'M' },
		{ NULL, 0, NULL, 0 },
	};
	struct option all[64];
	const struct option *opts;
	int calibrate = !strcmp(argv[0], "calibrate"), c, ret;
	const char *source = NULL, *cfgspec = NULL;
	struct ab_opts o;

	ab_opts_init(&o);
	o.calibrate = calibrate;
	optind = 1;
	opts = with_backend_opts(lopts, all, (int)ARRAY_SIZE(all));
	while ((c = getopt_long(argc, argv, "n:o:j:", opts, NULL)) != -1) {
		switch (c) {
		case 'j': o.jobs = parse_int(optarg, "--jobs", 1, AB_MAX_JOBS); break;
		case 'V': o.backend = xstrdup(check_backend(optarg)); break;
		case 'U': o.uri = xstrdup(optarg); break;
		case BACKEND_OPT_CASES: backend_opt(c, optarg); break;
		case 'H':
			if (ab_set_hosts(&o, optarg) < 0)
				exit(EXIT_USAGE);
			break;
		case 'X': o.mix_hosts = 1; break;
		case 'F': o.profile = 1; break;
		case 'G': source = optarg; break;
		case 'c': cfgspec = optarg; break;
		case 'A': o.side[0].kernel = xstrdup(optarg); break;
		case 'B': o.side[1].kernel = xstrdup(optarg); break;
		case 'k':
			o.side[0].kernel = xstrdup(optarg);
			o.side[1].kernel = xstrdup(optarg);
			break;
		case 'n':
			o.runs = parse_int(optarg, "--runs", 1, 1000);
			o.runs_given = 1;
			break;
		case 'M': o.metric = xstrdup(optarg); break;
		case 'u': o.until_ci = parse_pct(optarg, "--until-ci"); break;
		case 'm': o.max_runs = parse_int(optarg, "--max-runs", 2, 1000); break;
		case 'S': o.seed = (uint64_t)parse_int(optarg, "--seed", 0, 2147483647); break;
		case 's': add_set(o.sets, &o.nset, optarg); break;
		case 'a': add_set(o.side[0].sets, &o.side[0].nset, optarg); break;
		case 'b': add_set(o.side[1].sets, &o.side[1].nset, optarg); break;
		case 't': o.threshold = parse_pct(optarg, "--threshold") / 100; break;
		case 'r': o.retries = parse_int(optarg, "--retries", 0, 10); break;
		case 'W': o.warmup = parse_int(optarg, "--warmup", 0, 10); break;
		case 'o': o.out_dir = xstrdup(optarg); break;
		default: die("%s: see kpair help", argv[0]);
		}
	}
	if (optind != argc - 1)
		die("%s: expected one job file", argv[0]);
	if (o.nhosts && ((o.backend && !(backend_find(o.backend)->caps & BACKEND_HOSTS)) || o.uri ||
			 o.jobs > 1))
		die("--hosts runs one guest a host on libvirt: it does not go with --backend qemu, "
		    "--uri or -j");
	if (o.mix_hosts && !o.nhosts)
		die("--mix-hosts needs --hosts");
	if (o.profile && !(backend_find(o.nhosts ? backend_for_hosts()->name : o.backend)->caps &
			   BACKEND_PLUGINS))
		die("--profile: the profiled runs load a QEMU plugin: the %s backend cannot",
		    o.nhosts ? backend_for_hosts()->name : backend_find(o.backend)->name);
	backend_check(o.backend);
	if (cfgspec && !source)
		die("--config FILE|debian:ABI goes with --source DIR (a git tree to build)");
	if (source) {
		if (calibrate || !o.side[0].kernel || !o.side[1].kernel)
			die("--source DIR: give --stock REV and --patched REV (git revisions)");
		ret = sides_build_git(argv[optind], o.sets, o.nset, source, cfgspec,
				      &o.side[0].kernel, &o.side[1].kernel);
		if (ret) {
			ab_opts_release(&o);
			return ret == -2 ? EXIT_USAGE : 3;
		}
	}
	if (!calibrate && !o.side[0].kernel && !o.side[1].kernel &&
	    sides_build_pair(argv[optind], o.sets, o.nset, &o.side[0].kernel, &o.side[1].kernel) < 0) {
		ab_opts_release(&o);
		return 3;
	}
	if (!o.side[0].kernel || !o.side[1].kernel)
		die(calibrate ? "calibrate: --kernel K is required" :
			"ab: --stock K1 and --patched K2 are required (the same id twice is an A/A),"
			" or a job with a [pair] section");
	if (o.until_ci > 0 && o.max_runs < o.runs)
		die("--max-runs %d is below --runs %d", o.max_runs, o.runs);
	o.job_path = xstrdup(argv[optind]);
	ret = ab_run(&o);
	ab_opts_release(&o);
	return ret;
}

static int cmd_compare(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "metric", required_argument, NULL, 'M' },
		{ "unit", required_argument, NULL, 'U' },
		{ "higher-is-better", no_argument, NULL, 'H' },
		{ "threshold", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	const char *metric = NULL, *unit = "";
	int json = 0, higher = 0, c, i, files, ret;
	double threshold = 0.02;
	struct cmp cm;
	json_t *j;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", lopts, NULL)) != -1) {
		switch (c) {
		case 'j': json = 1; break;
		case 'M': metric = optarg; break;
		case 'U': unit = optarg; break;
		case 'H': higher = 1; break;
		case 't': threshold = parse_pct(optarg, "--threshold") / 100; break;
		default: die("compare: see kpair help");
		}
	}
	if (optind != argc - 2)
		die("compare: expected two result sets (or two sample files with --metric)");
	cmp_init(&cm, threshold);
	/* --metric with two sample files names their metric; with two result sets, the primary */
	files = metric && !dir_exists(argv[optind]);
	if (metric && !files)
		cmp_set_primary(&cm, metric, PRIMARY_OPTION);
	for (i = 0; i < 2; i++) {
		const char *src = argv[optind + i];

		if (files) {
			double *v;
			size_t n;

			if (read_samples_file(src, &v, &n) < 0)
				return 2;
			cmp_add_values(&cm, i, metric, unit, higher ? BETTER_HIGHER : BETTER_LOWER, v, n);
			free(v);
		} else {
			json_t *rs = load_results(src), *r;
			size_t k;

			if (!json_array_size(rs))
				die("compare: no result.json under '%s'", src);
			json_array_foreach(rs, k, r)
				cmp_add_result(&cm, i, r);
			json_decref(rs);
		}
	}
	cmp_compute(&cm);
	j = cmp_json(&cm);
	json_object_set_new(j, "format", json_string(COMPARE_FORMAT));
	json_object_set_new(j, "kind", json_string("compare"));
	json_object_set_new(j, "summary", summary_lines(j));
	if (json) {
		json_dumpf(j, stdout, JSON_INDENT(2));
		putchar('\n');
	} else {
		summary_print(json_object_get(j, "summary"));
		cmp_print(&cm, argv[optind], argv[optind + 1]);
	}
	json_decref(j);
	ret = outcome_exit(cmp_outcome(&cm));
	cmp_release(&cm);
	return ret;
}

static int cmd_nightly(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "date", required_argument, NULL, 'd' },
		{ "set", required_argument, NULL, 's' },
		{ "hosts", required_argument, NULL, 'H' },
		{ "backend", required_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct option all[64];
	const struct option *opts;
	char **sets = calloc(argc, sizeof(char *)), *hosts = NULL, *backend = NULL;
	const char *date = NULL;
	struct nightly n;
	int c, nset = 0, ret = EXIT_USAGE;

	if (!sets)
		die("out of memory");
	optind = 1;
	opts = with_backend_opts(lopts, all, (int)ARRAY_SIZE(all));
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'd': date = optarg; break;
		case 's': sets[nset++] = optarg; break;
		case 'H':
			if (hosts)
				die("nightly: --hosts given twice");
			hosts = xasprintf("nightly.hosts=%s", optarg);
			sets[nset++] = hosts;
			break;
		case 'V':
			if (backend)
				die("nightly: --backend given twice");
			backend = xasprintf("nightly.backend=%s", check_backend(optarg));
			sets[nset++] = backend;
			break;
		case BACKEND_OPT_CASES: backend_opt(c, optarg); break;
		default: die("nightly: see kpair help");
		}
	}
	if (optind != argc - 1)
		die("nightly: expected one nightly file");
	nightly_init(&n);
	if (nightly_load(&n, argv[optind], sets, nset) == 0) {
		backend_check(n.backend);
		ret = nightly_run(&n, date);
	}
	nightly_release(&n);
	free(backend);
	free(hosts);
	free(sets);
	return ret;
}

static int cmd_bisect(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "source", required_argument, NULL, 'S' },
		{ "series", required_argument, NULL, 'P' },
		{ "metric", required_argument, NULL, 'M' },
		{ "threshold", required_argument, NULL, 't' },
		{ "runs", required_argument, NULL, 'n' },
		{ "max-runs", required_argument, NULL, 'm' },
		{ "seed", required_argument, NULL, 'r' },
		{ "set", required_argument, NULL, 's' },
		{ "config", required_argument, NULL, 'c' },
		{ "fragment", required_argument, NULL, 'f' },
		{ "good", required_argument, NULL, 'g' },
		{ "bad", required_argument, NULL, 'b' },
		{ "target", required_argument, NULL, 'T' },
		{ "output", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	struct bisect_opts o = { .runs = 5, .max_runs = 0, .seed = 1, .threshold = 0.02 };
	char *src = NULL, *config = NULL;
	const char *cfgspec = NULL;
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "n:o:", lopts, NULL)) != -1) {
		switch (c) {
		case 'S': o.source = optarg; break;
		case 'P': o.series = optarg; break;
		case 'M': o.metric = optarg; break;
		case 't': o.threshold = parse_pct(optarg, "--threshold") / 100; break;
		case 'n': o.runs = parse_int(optarg, "--runs", 2, 1000); break;
		case 'm': o.max_runs = parse_int(optarg, "--max-runs", 2, 1000); break;
		case 'r': o.seed = (uint64_t)parse_int(optarg, "--seed", 0, 2147483647); break;
		case 's':
			if (o.nset >= AB_MAX_SETS)
				die("too many --set options (at most %d)", AB_MAX_SETS);
			o.sets[o.nset++] = optarg;
			break;
		case 'c': cfgspec = optarg; break;
		case 'f': o.fragment = optarg; break;
		case 'g': o.good = optarg; break;
		case 'b': o.bad = optarg; break;
		case 'T': o.target = optarg; break;
		case 'o': o.out_dir = optarg; break;
		default: die("bisect: see kpair help");
		}
	}
	if (optind != argc - 1 || !o.source || !o.metric || !o.series == !(o.good || o.bad) ||
	    !o.good != !o.bad)
		die("bisect: expected JOB --source S --metric NAME and either --series FILE or "
		    "--good REV --bad REV (a git tree)");
	if (cfgspec && !o.good)
		die("bisect: --config (a whole .config) goes with --good/--bad; a series takes "
		    "--fragment");
	if (cfgspec && config_resolve(cfgspec, &config) < 0)
		return EXIT_USAGE;
	o.config = config;
	/* the most runs a side any step gets: steps are sized to the regression and the noise */
	if (!o.max_runs)
		o.max_runs = BISECT_DEFAULT_MAX_RUNS > o.runs ? BISECT_DEFAULT_MAX_RUNS : o.runs;
	if (o.max_runs < o.runs)
		die("--max-runs %d is below --runs %d", o.max_runs, o.runs);
	/* patch(1) and the build run in the source tree: a directory must be absolute */
	if (strchr(o.source, '/')) {
		src = realpath(o.source, NULL);
		if (!src)
			die("--source '%s': %s", o.source, strerror(errno));
		o.source = src;
	}
	o.job_path = argv[optind];
	ret = bisect_run(&o);
	free(src);
	free(config);
	return ret;
}

static int cmd_dir(int argc, char **argv)
{
	if (argc != 2)
		die("%s: expected one directory", argv[0]);
	if (!strcmp(argv[0], "resume"))
		return ab_resume(argv[1]);
	return ab_report(argv[1]);
}

/* kpair report DIR | report --mail DIR */
static int cmd_report(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--mail"))
		return report_mail(argv[2]) < 0 ? 2 : 0;
	return cmd_dir(argc, argv);
}

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} commands[] = {
	{ "run", cmd_run },
	{ "profile", cmd_run },
	{ "ab", cmd_ab },
	{ "calibrate", cmd_ab },
	{ "compare", cmd_compare },
	{ "report", cmd_report },
	{ "resume", cmd_dir },
	{ "kernel", cmd_kernel },
	{ "nightly", cmd_nightly },
	{ "bisect", cmd_bisect },
	{ "export", cmd_export },
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
