/*
 * ab-plan.h - the A/B plan shared by ab.c: which side and host each slot of
 * the interleaved order gets, the per-side --set lists, and DIR/ab.json,
 * which keeps the plan so `kpair resume` continues it.
 */
#ifndef KPAIR_AB_PLAN_H
#define KPAIR_AB_PLAN_H

#include <jansson.h>
#include <stdint.h>

#include "ab-opts.h"

/* side of slot @j (0 stock, 1 patched): ABBA or BAAB blocks drawn from @seed */
int ab_slot_side(uint64_t seed, int j);
/* the libvirt host slot @j runs on (NULL without --hosts) */
const char *ab_slot_host(const struct ab_opts *o, int j);
/* the --set list of one side into @out (AB_MAX_SETS * 2): both sides' sets, then its own */
int ab_side_sets(const struct ab_opts *o, int side, char **out);
/* a JSON array of @n strings */
json_t *ab_strings_json(char *const *v, int n);
/*
 * the command that runs this A/B again, into a new directory: job, kernels,
 * every --set and option that differs from the default, the order's seed
 * (new string, caller frees)
 */
char *ab_command(const struct ab_opts *o);
/* write @o to o->out_dir/ab.json (atomically) */
int ab_plan_write(const struct ab_opts *o);
/* read @dir/ab.json into @o (initialized); -1 with an error naming the file */
int ab_plan_read(const char *dir, struct ab_opts *o);

#endif
