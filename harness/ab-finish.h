/*
 * ab-finish.h - what an A/B makes of the runs on disk: the comparison so far,
 * the family rule it announces after the first pair, and the end of it
 * (comparison.json, the table, report.html, the exit status)
 */
#ifndef KPAIR_AB_FINISH_H
#define KPAIR_AB_FINISH_H

#include <jansson.h>

#include "ab-opts.h"

struct cmp;
struct job;
/* the comparison of what is on disk so far (@job may be NULL): the results (new reference) */
json_t *ab_collect(const struct ab_opts *o, json_t *order, struct cmp *c, const struct job *job);
/* after the first pair: the family rule said, a default run count below the rank floor raised */
void ab_announce_family(const struct ab_opts *o, json_t *order, const struct job *job, int *target);
/* comparison.json, the table and report.html from @order; the exit status of the A/B */
int ab_finish(const struct ab_opts *o, json_t *order, const struct job *job);

#endif
