/* compare-table.c - the terminal verdict table and its number formats, 100 columns for any magnitude */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "counters-cmp.h"
#include "util.h"

/* @v in "%g" style, at most @width chars: fewer digits rather than a wider column */
static void fmt_num(char *buf, size_t len, double v, int width)
{
	int prec;

	for (prec = 5; prec > 1; prec--)
		if (snprintf(buf, len, "%.*g", prec, v) <= width)
			return;
	snprintf(buf, len, "%.1g", v);
}

void fmt_change(char *buf, size_t len, double ratio)
{
	double pct = (ratio - 1) * 100;

	if (isnan(ratio) || isinf(ratio))
		snprintf(buf, len, "-");
	else if (fabs(pct) < 9999.95)
		snprintf(buf, len, "%+.1f%%", pct);
	else if (ratio < 999999.5)
		snprintf(buf, len, "x%.0f", ratio);
	else
		snprintf(buf, len, "x%.1e", ratio);
}

void fmt_known(char *buf, size_t len, const char *fmt, double v)
{
	if (isnan(v) || isinf(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, fmt, v);
}

void fmt_ci_bound(char *buf, size_t len, double ratio)
{
	double pct = (ratio - 1) * 100;

	if (isnan(ratio) || isinf(ratio))
		snprintf(buf, len, "-");
	else if (fabs(pct) < 999.95)
		snprintf(buf, len, "%+.1f", pct);
	else if (ratio < 99999.5)
		snprintf(buf, len, "x%.0f", ratio);
	else
		snprintf(buf, len, "x%.0e", ratio);
}

/* "median ±CV": at most 15 columns (the number 8, " ±" and the CV 5) */
static void fmt_side(char *buf, size_t len, const struct summary *s)
{
	char num[16];

	if (isnan(s->median)) {
		snprintf(buf, len, "%s", "-");
		return;
	}
	fmt_num(num, sizeof(num), s->median, 8);
	if (isnan(s->cv) || isinf(s->cv))
		snprintf(buf, len, "%s", num);
	else if (s->cv * 100 < 99.95)
		snprintf(buf, len, "%s ±%4.1f%%", num, s->cv * 100);
	else if (s->cv * 100 < 999.5)
		snprintf(buf, len, "%s ±%4.0f%%", num, s->cv * 100);
	else
		snprintf(buf, len, "%s ±>999%%", num);
}

void print_wrapped(char *text)
{
	size_t lead = strspn(text, " ");
	const char *p = text + lead;
	int col = printf("%.*s", (int)lead, text), first = 1;

	while (*p) {
		size_t w = strcspn(p, " ");

		if (!first && col + 1 + (int)w > CMP_COLUMNS)
			col = printf("\n    ") - 1;
		else if (!first)
			col += printf(" ");
		col += printf("%.*s", (int)w, p);
		first = 0;
		p += w;
		p += strspn(p, " ");
	}
	putchar('\n');
	free(text);
}

/* the change and CI columns: a ratio as percent, a difference as a signed number */
static void fmt_change_ci(const struct metric *m, char *ch, size_t chlen, char *ci, size_t cilen)
{
	char lo[16], hi[16];

	if (m->c.scale == SCALE_DIFFERENCE) {
		fmt_num(lo, sizeof(lo), m->c.diff, 7);
		if (isnan(m->c.diff))
			snprintf(ch, chlen, "-");
		else if (m->c.diff > 0)
			snprintf(ch, chlen, "+%.7s", lo);
		else
			snprintf(ch, chlen, "%.8s", lo);
		if (isnan(m->c.diff_lo)) {
			snprintf(ci, cilen, "-");
			return;
		}
		fmt_num(lo, sizeof(lo), m->c.diff_lo, 6);
		fmt_num(hi, sizeof(hi), m->c.diff_hi, 6);
		snprintf(ci, cilen, "[%s%.6s, %s%.6s]", m->c.diff_lo > 0 ? "+" : "", lo,
			 m->c.diff_hi > 0 ? "+" : "", hi);
		return;
	}
	fmt_change(ch, chlen, m->c.ratio);
	if (isnan(m->c.ratio_lo) || isnan(m->c.ratio_hi)) {
		snprintf(ci, cilen, "-");
		return;
	}
	fmt_ci_bound(lo, sizeof(lo), m->c.ratio_lo);
	fmt_ci_bound(hi, sizeof(hi), m->c.ratio_hi);
	snprintf(ci, cilen, "[%s, %s]", lo, hi);
}

/* the lines under the table: why the first inconclusive metric is, the rule, failures, claim */
static void print_notes(const struct cmp *c, const char *label_a, const char *label_b)
{
	int i;

	for (i = 0; i < c->n; i++)
		if (c->m[i].better != BETTER_NONE && c->m[i].c.verdict == V_INCONCLUSIVE) {
			print_wrapped(xasprintf("  inconclusive %s: %s", c->m[i].name, c->m[i].c.why));
			break;	/* the reason is much the same for every metric of a run count */
		}
	if (c->primary >= 0)
		print_wrapped(xasprintf("  primary metric %s (%s): its p alone; Benjamini-Hochberg "
					"(false discovery rate 5 %%) across the %d other%s",
					c->m[c->primary].name, c->primary_source == PRIMARY_CLAIM ?
					"the claim's" : primary_source_names[c->primary_source],
					c->secondaries, c->secondaries == 1 ? "" : "s"));
	else if (c->secondaries > 1)
		print_wrapped(xasprintf("  %d metrics, one family: Benjamini-Hochberg (false discovery "
					"rate 5 %%)%s", c->secondaries, c->primary_name ||
					c->secondaries < 5 ? "" :
					"; name the one that matters with --metric to test it alone"));
	if (c->primary_name && c->primary < 0)
		print_wrapped(xasprintf("  primary metric '%s' was not measured (or is not a timing or "
					"rate): no metric is tested alone", c->primary_name));
	if (c->failed_a || c->failed_b)
		printf("  failed runs: %d %s, %d %s (left out of the statistics)\n", c->failed_a,
		       label_a, c->failed_b, label_b);
	/* a side with no good run: its column is empty, the reason is here */
	if (!c->ok_a && c->failed_a)
		print_wrapped(xasprintf("  no %s run ended ok: %s", label_a, c->first_fail[0]));
	if (!c->ok_b && c->failed_b)
		print_wrapped(xasprintf("  no %s run ended ok: %s", label_b, c->first_fail[1]));
	if (c->fail.kind != FAIL_NONE && c->fail.kind != FAIL_CHANCE)
		print_wrapped(xasprintf("  failures: %s", c->fail.why));
	if (c->counters) {
		char *s = counters_sentence(c->counters, 5);

		print_wrapped(xasprintf("  %s", s));
		free(s);
	}
	if (c->claim.present)
		print_wrapped(xasprintf("claim (%s): %s: %s", c->claim.source,
					claim_names[c->claim.result], c->claim.why));
}

void cmp_print(const struct cmp *c, const char *label_a, const char *label_b)
{
	const char *la = strrchr(label_a, '/') ? strrchr(label_a, '/') + 1 : label_a;
	const char *lb = strrchr(label_b, '/') ? strrchr(label_b, '/') + 1 : label_b;
	int i, w = 21;

	/* the name column is as wide as the longest "name (unit)": one line a metric, names whole */
	for (i = 0; i < c->n; i++) {
		int n = (int)(strlen(c->m[i].name) + strlen(c->m[i].unit)) + 3;

		if (c->m[i].better != BETTER_NONE && n > w)
			w = n;
	}
	/* w + 15 + 15 + 8 + 16 + 7 + 15 ("regressed-small") and six spaces: 103 at w = 21 */
	printf("%-*s %-15.15s %-15.15s %8s %16s %7s %s\n", w, "metric", la, lb, "change",
	       "95% CI", "p", "verdict");
	for (i = 0; i < c->n; i++) {
		const struct metric *m = &c->m[i];
		char name[160], sa[32], sb[32], ci[40], ch[16], p[16];

		if (m->better == BETTER_NONE)
			continue;
		snprintf(name, sizeof(name), "%s (%s)", m->name, m->unit);
		fmt_side(sa, sizeof(sa), &m->c.a);
		fmt_side(sb, sizeof(sb), &m->c.b);
		fmt_change_ci(m, ch, sizeof(ch), ci, sizeof(ci));
		if (isnan(m->c.p_adj))
			snprintf(p, sizeof(p), "-");
		else
			snprintf(p, sizeof(p), m->c.p_adj < 1e-3 ? "%.2g" : "%.3g", m->c.p_adj);
		/* "±" is two bytes but one column */
		printf("%-*s %-*s %-*s %8s %16s %7s %s\n", w, name, 15 + !!strstr(sa, "±"), sa,
		       15 + !!strstr(sb, "±"), sb, ch, ci, p, verdict_names[m->c.verdict]);
	}
	print_notes(c, label_a, label_b);
}
