/*
 * sim-verdicts.c - `make sim`: the tables behind docs/ab.md's figures on the
 * verdict rule, by simulation with kpair's own code (tests/sim/sim.h). Fixed
 * seeds: the same build prints the same tables. `sim-verdicts [section...]`
 * prints the named sections only (aa shift coverage small failures advice bisect).
 */
#include "sim.h"

static gsl_rng *rng;
static int trials = 2000;

static void aa(void)
{
	static const double cvs[] = { 0.001, 0.01, 0.05 };
	static const int ns[] = { 3, 5, 10 };
	struct aa_rates a;
	int k, i, j, rho, prim;

	printf("\n== A/A, 15 metrics: the share of A/As with any verdict that is not "
	       "no-change/inconclusive (%d trials each)\n", trials);
	printf("%-10s %5s %6s %4s %8s  %9s %9s %9s %9s\n", "noise", "n", "cv", "rho", "primary",
	       "any", "exit 1", "primary", "others");
	for (k = 0; k < NOISE_N; k++)
		for (i = 0; i < 3; i++)
			for (j = 0; j < 3; j++)
				for (rho = 0; rho < 2; rho++)
					for (prim = 0; prim < 2; prim++) {
						sim_aa(rng, 15, ns[i], k, cvs[j], rho ? 0.8 : 0, prim,
						       trials, &a);
						printf("%-10s %5d %5.1f%% %4.1f %8s  %8.2f%% %8.2f%% "
						       "%8.2f%% %8.2f%%\n", noise_names[k], ns[i],
						       cvs[j] * 100, rho ? 0.8 : 0.0, prim ? "m00" : "-",
						       a.any_change * 100, a.any_regressed * 100,
						       a.primary_change * 100, a.secondary_change * 100);
					}
}

static void shift(void)
{
	/* the fio file of the issue: 15 metrics moved by 2-8 % */
	static const double fio[15] = { 1.06, 0.919, 0.944, 1.06, 1.02, 1.03, 0.95, 1.08,
					1.04, 0.97, 1.05, 0.93, 1.025, 0.96, 1.07 };
	static const double cvs[] = { 0.0005, 0.002, 0.01, 0.02 };
	double s[SIM_MAX_M];
	struct shift_rates x;
	int i, k;

	printf("\n== shifted A/Bs, 5 runs a side: the share of metrics called (new rule), the A/Bs "
	       "calling 80 %% of them, and the share under the old rule (Holm over Mann-Whitney)\n");
	printf("%-34s %6s %9s %9s %9s\n", "case", "cv", "called", ">=80%", "old rule");
	for (i = 0; i < 4; i++) {
		sim_shifted(rng, 15, 5, fio, NOISE_NORMAL, cvs[i], 0.5, trials, &x);
		printf("%-34s %5.2f%% %8.1f%% %8.1f%% %8.1f%%\n", "15 fio metrics moved 2-8 %",
		       cvs[i] * 100, x.called * 100, x.most_called * 100, x.old_called * 100);
	}
	for (k = 0; k < 8; k++)
		s[k] = 1.3;
	sim_shifted(rng, 8, 5, s, NOISE_NORMAL, 0.01, 0, trials, &x);
	printf("%-34s %5.2f%% %8.1f%% %8.1f%% %8.1f%%\n", "8 metrics all +30 %", 1.0, x.called * 100,
	       x.most_called * 100, x.old_called * 100);
	for (k = 0; k < 15; k++)
		s[k] = k ? 1 : 6.9;
	sim_shifted(rng, 15, 5, s, NOISE_NORMAL, 0.001, 0, trials, &x);
	printf("%-34s %5.2f%% %8.1f%% %8.1f%% %8.1f%%  (of 15; 1/15 = 6.7%%)\n",
	       "1 of 15 moved +592 %", 0.1, x.called * 100, x.most_called * 100, x.old_called * 100);
}

static void coverage(void)
{
	static const double cvs[] = { 0.001, 0.005, 0.01, 0.02, 0.05 };
	static const int ns[] = { 2, 3, 4, 5, 6, 8, 10, 15, 20 };
	double worst = 1;
	int k, i, j;

	printf("\n== coverage of the printed 95 %% interval of a +5 %% change (%d trials each)\n",
	       2 * trials);
	printf("%-10s %6s", "noise", "cv");
	for (i = 0; i < 9; i++)
		printf(" %6d", ns[i]);
	printf("  (runs a side)\n");
	for (k = 0; k < 2; k++)
		for (j = 0; j < 5; j++) {
			printf("%-10s %5.1f%%", noise_names[k], cvs[j] * 100);
			for (i = 0; i < 9; i++) {
				double c = sim_coverage(rng, ns[i], k, cvs[j], 1.05, 2 * trials);

				worst = fmin(worst, c);
				printf(" %5.1f%%", c * 100);
			}
			putchar('\n');
		}
	printf("lowest: %.1f %%\n", worst * 100);
}

static void small(void)
{
	double sh[V_NVERDICT];

	printf("\n== a +0.3 %% change at cv 0.1 %%, 6 runs a side\n");
	sim_verdicts(rng, 6, NOISE_NORMAL, 0.001, 1.003, trials, sh);
	printf("regressed %.1f %% (exit 1), regressed-small %.1f %%, no-change %.1f %%, inconclusive "
	       "%.1f %%\n", sh[V_REGRESSED] * 100, sh[V_REGRESSED_SMALL] * 100, sh[V_NO_CHANGE] * 100,
	       sh[V_INCONCLUSIVE] * 100);
	printf("== a +3 %% change at cv 0.5 %%, 5 runs a side\n");
	sim_verdicts(rng, 5, NOISE_NORMAL, 0.005, 1.03, trials, sh);
	printf("regressed %.1f %%, regressed-small %.1f %%, no-change %.1f %%, inconclusive %.1f %%\n",
	       sh[V_REGRESSED] * 100, sh[V_REGRESSED_SMALL] * 100, sh[V_NO_CHANGE] * 100,
	       sh[V_INCONCLUSIVE] * 100);
}

static void failures(void)
{
	static const double cases[][2] = { { 0, 0.4 }, { 0, 0.2 }, { 0.05, 0.05 }, { 0.1, 0.1 },
					   { 0, 0 } };
	int i, g;

	printf("\n== failed runs, 5 ok runs a side wanted, --retries 1 (%d trials each): the share "
	       "of A/As that end with exit 0\n", trials);
	printf("%-8s %-8s %14s %14s\n", "stock", "patched", "guest failure", "host failure");
	for (i = 0; i < 5; i++) {
		double p[2];

		printf("%6.0f%%  %6.0f%% ", cases[i][0] * 100, cases[i][1] * 100);
		for (g = 1; g >= 0; g--) {
			p[0] = cases[i][0];
			p[1] = cases[i][1];
			printf(" %13.1f%%", sim_failures(rng, p, g, 5, trials) * 100);
		}
		putchar('\n');
	}
}

static void advice(void)
{
	static const double cvs[] = { 0.01, 0.02, 0.05, 0.1 };
	static const int ms[] = { 1, 10 };
	int i, j, d;

	printf("\n== calibrate's runs a side for a shift of one metric (80 %% power stated), and the "
	       "power measured there (%d trials)\n", trials);
	printf("%4s %6s %6s %8s %8s %8s %8s\n", "m", "cv", "shift", "kpair n", "power", "Lehr n",
	       "power");
	for (i = 0; i < 2; i++)
		for (j = 0; j < 4; j++)
			for (d = 5; d <= 10; d += 5) {
				struct advice a;

				sim_advice(rng, ms[i], cvs[j], d / 100.0, trials, &a);
				printf("%4d %5.0f%% %5d%% %8d %7.1f%% %8d %7.1f%%\n", ms[i], cvs[j] * 100,
				       d, a.n, a.power * 100, a.lehr, a.lehr_power * 100);
			}
}

static void bisect(void)
{
	static const double cases[][2] = { { 0.10, 0.05 }, { 0.10, 0.01 }, { 0.30, 0.05 },
					   { 0.03, 0.05 }, { 0.03, 0.01 }, { 0.05, 0.02 } };
	int i;

	printf("\n== bisect over 10 commits, one of them regressing, -n 5, --max-runs 40 (%d trials "
	       "each)\n", trials / 4);
	printf("%7s %6s %8s %8s %11s %11s %8s %8s\n", "effect", "cv", "right", "wrong", "unresolved",
	       "infeasible", "none", "boots");
	for (i = 0; i < 6; i++) {
		struct bisect_rates b;

		sim_bisect(rng, 10, cases[i][0], cases[i][1], 5, 40, trials / 4, &b);
		printf("%6.0f%% %5.0f%% %7.1f%% %7.1f%% %10.1f%% %10.1f%% %7.1f%% %8.0f\n",
		       cases[i][0] * 100, cases[i][1] * 100, b.right * 100, b.wrong * 100,
		       b.unresolved * 100, b.infeasible * 100, b.none * 100, b.boots);
	}
}

static const struct {
	const char *name;
	void (*fn)(void);
} sections[] = {
	{ "aa", aa }, { "shift", shift }, { "coverage", coverage }, { "small", small },
	{ "failures", failures }, { "advice", advice }, { "bisect", bisect },
};

int main(int argc, char **argv)
{
	size_t i;
	int k;

	rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, 20261205);
	if (getenv("SIM_TRIALS"))
		trials = atoi(getenv("SIM_TRIALS"));
	for (i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
		int want = argc == 1;

		for (k = 1; k < argc; k++)
			want |= !strcmp(argv[k], sections[i].name);
		if (want)
			sections[i].fn();
	}
	gsl_rng_free(rng);
	return 0;
}
