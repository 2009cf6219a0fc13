/*
 * summary.h - what a comparison found, in sentences: the headline, the
 * verdict of each metric in words, the claim, the failed runs, what was
 * compared, the measurement mode and what it means, the command to rerun it
 */
#ifndef KPAIR_SUMMARY_H
#define KPAIR_SUMMARY_H

#include <jansson.h>

/* the sentences of comparison @cmp (borrowed), headline first (new reference: array) */
json_t *summary_lines(json_t *cmp);
struct text;
/* a side of comparison.json's sides (kernel_id, kernel) in the user's words, onto @t */
void summary_kernel_words(struct text *t, json_t *side);
/* the same for a kernel of the store, by its id (caller frees) */
char *summary_kernel_id_words(const char *id);
/* print them, the headline first, each wrapped to the table's 100 columns */
void summary_print(json_t *lines);

#endif
