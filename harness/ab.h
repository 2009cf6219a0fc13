/*
 * ab.h - the A/B engine: stock and patched runs interleaved in randomized
 * ABBA blocks (seed recorded), every run a fresh boot on a fresh fs, failed
 * runs recorded and retried, optional adaptive stopping on the ratio CI,
 * then the comparison (compare.h) and the report (html.h). The plan is kept
 * in DIR/ab.json so `kpair resume DIR` continues where a run stopped.
 */
#ifndef KPAIR_AB_H
#define KPAIR_AB_H

#include "ab-opts.h"

void ab_opts_init(struct ab_opts *o);
void ab_opts_release(struct ab_opts *o);

/* split "URI1,URI2,..." into o->hosts; -1 with an error naming the bad entry */
int ab_set_hosts(struct ab_opts *o, const char *list);

/* run (or continue) an A/B; returns the exit code kpair gives */
int ab_run(struct ab_opts *o);
/* continue an interrupted A/B from DIR/ab.json */
int ab_resume(const char *dir);
/* continue the A/B of DIR to @runs a side (more than planned: the same order, extended) */
int ab_extend(const char *dir, int runs);
/* rebuild comparison.json, the table and report.html of DIR from its runs */
int ab_report(const char *dir);

#endif
