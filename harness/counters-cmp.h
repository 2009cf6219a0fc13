/* counters-cmp.h - what else changed: the kernel counters of two sides (counters-cmp.c) */
#ifndef KPAIR_COUNTERS_CMP_H
#define KPAIR_COUNTERS_CMP_H

#include <jansson.h>

/*
 * @runs_a, @runs_b: one object a good run (result.json "counters", {} when none); the
 * family's comparison (new reference): rule, tested, runs, changed[] largest first
 */
json_t *counters_compare(json_t *runs_a, json_t *runs_b);
/* "what else changed (...): vmstat.pgalloc_normal -67 % (1.2 M -> 400 k), ..." (caller frees) */
char *counters_sentence(json_t *ctr, int top);

#endif
