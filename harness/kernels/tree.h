/*
 * tree.h - where a kernel is built: the build's spec, its source tree and
 * object directory, the kernel architectures, make itself, and the kinds of
 * tree (tree-package.c: a Debian linux-source package, tree-dir.c: a directory
 * the user names, tree-git.c: a git revision in kpair's own checkout), each
 * one file and one entry in tree.c's table.
 */
#ifndef KPAIR_TREE_H
#define KPAIR_TREE_H

#include <jansson.h>

#define BUILD_MAX_PATCHES 16

struct gitsrc;

struct build_spec {
	const char *source;		/* "linux-source-6.1" or a directory */
	const char *fragment;		/* NULL: configs/kconfig/<target>.config */
	/*
	 * A whole .config instead of tinyconfig + fragment: the fragment's
	 * options are forced on top (listed in kernel.json) and modules stay
	 * modules, installed into the kernel's store directory.
	 */
	const char *config;
	/* fragment lines a job needs (kneeds_fragment), forced on top; NULL: none */
	const char *needs;
	/* a git source: build commit @sha (named @rev by the user) of @git */
	const struct gitsrc *git;
	const char *sha, *rev;
	int config_only;		/* configure, print, stop: *id stays NULL */
	const char *target;		/* "x86_64" */
	const char *patches[BUILD_MAX_PATCHES];
	int npatches;
	int jobs;			/* make -j */
};

struct tree {
	char *name;		/* for ids: linux-source-6.1, or the directory's base name */
	char *src;		/* the source tree */
	char *work;		/* images/build/<name>-<target> */
	char *obj;		/* work/obj: the O= directory */
	char *version;		/* VERSION.PATCHLEVEL.SUBLEVEL, plus the package version */
	int lock;
	const struct tree_kind *kind;
};

struct karch {
	const char *target_arch;	/* Debian arch of the target file */
	const char *arch;		/* kernel ARCH= */
	const char *cross;		/* CROSS_COMPILE= */
	const char *image;		/* make target and its path under obj */
	const char *image_path;
};

/* make -C src O=obj ARCH= CROSS_COMPILE= -jN [CC='ccache gcc'] @what [@var], logged to @log */
int kmake_var(const struct tree *t, const struct karch *ka, const char *what, const char *var,
	      int jobs, const char *log, int timeout_ms);
int kmake(const struct tree *t, const struct karch *ka, const char *what, int jobs,
	  const char *log, int timeout_ms);
/* 1 when kmake compiles through ccache (installed, and KPAIR_CCACHE is not 0) */
int kmake_uses_ccache(void);

/* the kernel architecture of Debian architecture @arch, or NULL */
const struct karch *karch_find(const char *arch);

/* a kind of source tree a build runs in */
struct tree_kind {
	const char *name;
	/* does @spec's source name a tree of this kind? */
	int (*match)(const struct build_spec *spec);
	/* t->name, work, obj and src; t->version when it is known now */
	int (*open)(const struct build_spec *spec, struct tree *t);
	/* locked: the sources there and their version (unpacked once) */
	int (*ready)(const struct build_spec *spec, struct tree *t);
	/* a build that is not cached: the sources as the spec wants them (a checkout) */
	int (*prepare)(const struct build_spec *spec, struct tree *t);
	/* the id of its build with config key @key (caller frees) */
	char *(*id)(const struct build_spec *spec, const struct tree *t, const char *target,
		    const char *key);
	/* kernel.json's source.source: the package or the directory */
	const char *(*where)(const struct build_spec *spec);
	/* what else kernel.json's source keeps of it, into @source (NULL: nothing) */
	void (*record)(const struct build_spec *spec, json_t *source);
	/* what a failed build names (caller frees), or NULL: the make error says it all */
	char *(*failed)(const struct build_spec *spec);
};
extern const struct tree_kind tree_package, tree_dir, tree_git;

/* the kind of tree of @spec (its error when none takes it), opened and locked */
int tree_open(const struct build_spec *spec, struct tree *t);
void tree_release(struct tree *t);


#endif
