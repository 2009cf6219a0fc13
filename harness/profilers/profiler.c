/* profiler.c - the table of profilers (profiler.h) */
#include <string.h>

#include "profilers/profiler.h"
#include "util.h"

static const struct profiler *const profilers[] = {
	&profiler_insns,
};

const struct profiler *profiler_find(const char *name)
{
	size_t i;

	if (!name)
		return profilers[0];
	for (i = 0; i < ARRAY_SIZE(profilers); i++)
		if (!strcmp(profilers[i]->name, name))
			return profilers[i];
	return NULL;
}
