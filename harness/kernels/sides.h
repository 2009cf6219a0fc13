/*
 * sides.h - the kernels of an A/B as a developer names them: revisions of
 * their git tree built with their whole .config (or a Debian package's), on
 * top of kernel ids from the store (fetched, built or imported).
 */
#ifndef KPAIR_SIDES_H
#define KPAIR_SIDES_H

/*
 * --config: a .config file (made absolute) or debian:<abi>-<flavour>, whose
 * package is fetched for its config. *path gets the file (caller frees).
 */
int config_resolve(const char *spec, char **path);

/*
 * Build revisions @revs[0..n) of the git tree @source for @target (NULL:
 * x86_64) with the whole config @config (NULL: tinyconfig + the target's
 * fragment). Every revision is resolved before anything is built: an unknown
 * one is an error naming it. Ids into @ids (caller frees each). Prints a line
 * a revision: its id, commit and build time. Returns 0, -2 on bad input
 * (not a git tree, an unknown revision, a config for another architecture),
 * -1 when a build failed.
 */
int git_build_revs(const char *source, const char *const *revs, int n, const char *config,
		   const char *target, const char *needs, char **ids);

/*
 * A job's [pair]: build its stock and patched kernels (cached), ids to
 * *stock and *patched (left alone when the job has no [pair]). 0 or -1.
 */
int sides_build_pair(const char *path, char **sets, int nset, char **stock, char **patched);
/*
 * ab --source DIR: *stock and *patched name revisions of DIR, built with the
 * job's target and @cfgspec (--config, or NULL); the ids replace them. 0, -2
 * on bad input, -1 when a build failed.
 */
int sides_build_git(const char *job_path, char **sets, int nset, const char *source,
		    const char *cfgspec, char **stock, char **patched);

#endif
