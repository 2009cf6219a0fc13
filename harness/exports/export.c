/*
 * export.c - kpair export NAME: the table of exporters (LAVA in export-lava.c,
 * KCIDB in export-kcidb.c), their usage and the dispatch.
 */
#include <stdio.h>
#include <string.h>

#include "export.h"
#include "util.h"

static const struct exporter *const exporters[] = {
	&exporter_lava,
	&exporter_kcidb,
};

static void export_usage(FILE *f)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(exporters); i++)
		fprintf(f, "%s %s", i ? "      " : "usage:", exporters[i]->usage);
}

int export_usage_exit(void)
{
	export_usage(stderr);
	return EXPORT_USAGE;
}

int cmd_export(int argc, char **argv)
{
	char names[128] = "";
	size_t i;

	for (i = 0; i < ARRAY_SIZE(exporters); i++)	/* "lava or kcidb", "a, b or c" */
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
			 !i ? "" : i + 1 < ARRAY_SIZE(exporters) ? ", " : " or ", exporters[i]->name);

	if (argc < 2)
		return export_usage_exit();
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help")) {
		export_usage(stdout);
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(exporters); i++)
		if (!strcmp(argv[1], exporters[i]->name))
			return exporters[i]->cmd(argc - 1, argv + 1);
	error("export: '%s': expected %s", argv[1], names);
	return export_usage_exit();
}
