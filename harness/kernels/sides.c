/* sides.c - kernels from a developer's git tree and config, for ab, kernel build and nightly */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "config.h"
#include "gitsrc.h"
#include "job.h"
#include "kernel.h"
#include "kneeds.h"
#include "sides.h"
#include "util.h"

int config_resolve(const char *spec, char **path)
{
	struct kernel k;

	*path = NULL;
	if (kernel_spec_is_package(spec)) {
		kernel_init(&k);
		if (kernel_fetch(spec, &k) == 0)
			*path = xasprintf("%s/config", k.dir);
		kernel_release(&k);
		if (*path && !path_exists(*path)) {
			free(*path);
			*path = NULL;
			return error("--config %s: the package's store directory has no config", spec);
		}
		return *path ? 0 : -1;
	}
	*path = realpath(spec, NULL);
	if (!*path)
		return error("--config '%s': %s", spec, strerror(errno));
	return 0;
}

int git_build_revs(const char *source, const char *const *revs, int n, const char *config,
		   const char *target, const char *needs, char **ids)
{
	struct build_spec spec = { .target = target ? target : "x86_64", .jobs = 2, .needs = needs };
	struct gitsrc g;
	char **shas = xcalloc(n, sizeof(*shas));
	int i, ret = -1;

	gitsrc_init(&g);
	for (i = 0; i < n; i++)
		ids[i] = NULL;
	/* bad input is found before any build: -2 */
	ret = -2;
	if (gitsrc_open(&g, source) < 0)
		goto out;
	for (i = 0; i < n; i++)
		if (gitsrc_resolve(&g, revs[i], &shas[i]) < 0)
			goto out;
	if (config && build_config_fits(config, spec.target) < 0)
		goto out;
	ret = -1;
	if (gitsrc_dirty(&g) == 1)
		warning("'%s' has uncommitted changes: kpair builds commits, never the work tree "
			"(kernel.json records it dirty)", g.dir);
	spec.git = &g;
	spec.config = config;
	for (i = 0; i < n; i++) {
		double t0 = mono_now();

		spec.rev = revs[i];
		spec.sha = shas[i];
		if (kernel_build(&spec, &ids[i]) < 0)
			goto out;
		printf("%-8s %s (%.12s, %.1f s)\n", revs[i], ids[i], shas[i], mono_now() - t0);
	}
	ret = 0;
out:
	for (i = 0; i < n; i++) {
		if (ret) {
			free(ids[i]);
			ids[i] = NULL;
		}
		free(shas[i]);
	}
	free(shas);
	gitsrc_release(&g);
	return ret;
}

int sides_build_pair(const char *path, char **sets, int nset, char **stock, char **patched)
{
	struct build_spec spec = { .jobs = 2 };
	char *list, *tok, *save = NULL, *abs[BUILD_MAX_PATCHES], *needs = NULL;
	struct job job;
	int i, ret = -1;

	job_init(&job);
	if (job_open(&job, path, sets, nset) < 0)
		goto out;
	if (!*job.pair_source) {
		ret = 0;	/* no [pair]: the caller asks for --stock/--patched */
		goto out;
	}
	spec.source = job.pair_source;
	spec.target = job.target;
	spec.fragment = *job.pair_config ? job.pair_config : NULL;
	spec.needs = needs = kneeds_fragment(&job);
	list = xstrdup(job.pair_patches);
	for (tok = strtok_r(list, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		char *rel = tok[0] == '/' ? xstrdup(tok) : xasprintf("%s/%s", kpair_root(), tok);

		if (spec.npatches >= BUILD_MAX_PATCHES) {
			free(rel);
			break;
		}
		abs[spec.npatches] = realpath(rel, NULL);
		if (!abs[spec.npatches]) {
			error("%s: pair.patches: '%s': %s", path, tok, strerror(errno));
			free(rel);
			goto out_free;
		}
		free(rel);
		spec.patches[spec.npatches] = abs[spec.npatches];
		spec.npatches++;
	}
	{
		struct build_spec s0 = spec;

		s0.npatches = 0;
		info("ab: building the [pair] of %s: stock, then %d patch(es)", path, spec.npatches);
		if (kernel_build(&s0, stock) < 0 || kernel_build(&spec, patched) < 0)
			goto out_free;
	}
	ret = 0;
out_free:
	for (i = 0; i < spec.npatches; i++)
		free(abs[i]);
	free(list);
out:
	free(needs);
	job_release(&job);
	return ret;
}

int sides_build_git(const char *job_path, char **sets, int nset, const char *source,
		    const char *cfgspec, char **stock, char **patched)
{
	const char *revs[2] = { *stock, *patched };
	char *config = NULL, *ids[2], *needs = NULL;
	struct job job;
	int r = -2;

	job_init(&job);
	if (job_open(&job, job_path, sets, nset) == 0 &&
	    (!cfgspec || config_resolve(cfgspec, &config) == 0)) {
		needs = kneeds_fragment(&job);
		r = git_build_revs(source, revs, 2, config, job.target, needs, ids);
	}
	if (!r) {
		free(*stock);
		free(*patched);
		*stock = ids[0];
		*patched = ids[1];
	}
	job_release(&job);
	free(needs);
	free(config);
	return r;
}
