/*
 * stacks.c - the plugin's calling contexts as folded stacks (DIR/stacks.txt): one line per
 * chain of kernel functions, "outer;...;inner COUNT", COUNT the instructions executed in
 * the innermost one while the others were on the stack, the format flamegraph.pl and
 * speedscope read. Contexts are merged by function name (two call sites of one caller are
 * one frame); a call made from another function than the frame below it names (the frame's
 * function tail-called it) gets that function as a frame of its own; a subtree below STACKS_MIN of the total is folded into its top frame, so the
 * file stays small and still adds up: its counts sum to the kernel's instructions, plus one
 * "[user space]" line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profilers/stacks.h"
#include "util.h"

#define STACKS_MIN 1e-5	/* of the total: smaller subtrees fold into their top frame */

struct fnode {
	const char *name;	/* borrowed from the symbol table */
	size_t parent;
	unsigned long long self, incl;
	size_t child, sibling;	/* first child, next sibling (0: none; 0 is the root) */
};

struct ftree {
	struct fnode *n;
	size_t len, cap;
	size_t *hash;		/* open addressing on (parent, name): index + 1, 0 empty */
	size_t hcap;
};

static size_t fhash(size_t parent, const char *name)
{
	size_t h = parent * 0x9e3779b97f4a7c15ull;

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 0x100000001b3ull;
	return h ^ (h >> 31);
}

static void ftree_grow_hash(struct ftree *t)
{
	size_t i, cap = t->hcap ? 2 * t->hcap : 1 << 16;
	size_t *h = xcalloc(cap, sizeof(*h));

	for (i = 1; i < t->len; i++) {
		size_t k = fhash(t->n[i].parent, t->n[i].name) & (cap - 1);

		while (h[k])
			k = (k + 1) & (cap - 1);
		h[k] = i + 1;
	}
	free(t->hash);
	t->hash = h;
	t->hcap = cap;
}

/* the frame @name called from frame @parent, made when new */
static size_t ftree_child(struct ftree *t, size_t parent, const char *name)
{
	size_t k, i;

	if (2 * (t->len + 1) > t->hcap)
		ftree_grow_hash(t);
	for (k = fhash(parent, name) & (t->hcap - 1); t->hash[k]; k = (k + 1) & (t->hcap - 1)) {
		i = t->hash[k] - 1;
		if (t->n[i].parent == parent && !strcmp(t->n[i].name, name))
			return i;
	}
	if (t->len == t->cap) {
		t->cap *= 2;
		t->n = xrealloc(t->n, t->cap * sizeof(*t->n));
	}
	i = t->len++;
	memset(&t->n[i], 0, sizeof(t->n[i]));
	t->n[i].name = name;
	t->n[i].parent = parent;
	t->n[i].sibling = t->n[parent].child;
	t->n[parent].child = i;
	t->hash[k] = i + 1;
	return i;
}

/* the kernels' context switch (x86, arm64): what runs after it is another task's */
static int is_switch(const char *name)
{
	return !strcmp(name, "__switch_to_asm") || !strcmp(name, "cpu_switch_to");
}

#define SWITCHED "[after a context switch]"

/* the frame of context @id (its parents first), memoised in @fid (+1; 0: not yet) */
static size_t frame_of(struct ftree *t, const struct cct *c, size_t id, size_t *fid, int depth)
{
	size_t p;

	if (!id || id >= c->n)
		return 0;
	if (fid[id])
		return fid[id] - 1;
	/* a chain deeper than the plugin's stack is a broken one: it hangs off the root */
	p = depth < 1024 ? frame_of(t, c, c->parent[id], fid, depth + 1) : 0;
	/*
	 * one shadow stack a vCPU: the task switched to returns through the frames of the
	 * one switched from, so its calls go under a root of their own, not under the other's
	 */
	if (p && is_switch(t->n[p].name)) {
		p = ftree_child(t, 0, SWITCHED);
	} else if (p && c->site[id]) {
		/* made from another function than the one called: a tail call (jmp) between */
		const char *caller = c->name(c->ctx, c->site[id] - 1);

		if (strcmp(caller, t->n[p].name))
			p = ftree_child(t, p, caller);
	}
	fid[id] = ftree_child(t, p, c->name(c->ctx, c->callee[id])) + 1;
	return fid[id] - 1;
}

struct writer {
	struct text out;
	const char *path[1100];
	unsigned long long min;
};

static unsigned long long sum_incl(struct ftree *t, size_t i)
{
	size_t c;

	t->n[i].incl = t->n[i].self;
	for (c = t->n[i].child; c; c = t->n[c].sibling)
		t->n[i].incl += sum_incl(t, c);
	return t->n[i].incl;
}

static void write_frame(struct writer *w, const struct ftree *t, size_t i, int depth)
{
	unsigned long long self = t->n[i].self;
	size_t c;
	int k;

	w->path[depth] = t->n[i].name;
	for (c = t->n[i].child; c; c = t->n[c].sibling) {
		if (t->n[c].incl >= w->min && depth + 1 < 1100)
			write_frame(w, t, c, depth + 1);
		else
			self += t->n[c].incl;	/* folded into this frame */
	}
	if (!self)
		return;
	for (k = 1; k <= depth; k++)	/* path[0] is the root, which has no name */
		text_add(&w->out, "%s%s", k > 1 ? ";" : "", w->path[k]);
	text_add(&w->out, "%s %llu\n", depth ? "" : "[kernel, no call]", self);
}

int stacks_write(const char *path, const struct cct *c, unsigned long long user)
{
	struct ftree t = { 0 };
	struct writer w = { 0 };
	size_t *fid = xcalloc(c->n ? c->n : 1, sizeof(*fid)), id;
	unsigned long long total;
	int ret;

	t.cap = 1024;
	t.n = xcalloc(t.cap, sizeof(*t.n));
	t.len = 1;	/* the root: kernel code with no call on the stack */
	for (id = 0; id < c->n; id++) {
		size_t f;

		if (!c->self[id])
			continue;
		f = frame_of(&t, c, id, fid, 0);	/* may move t.n */
		t.n[f].self += c->self[id];
	}
	total = sum_incl(&t, 0) + user;
	w.min = (unsigned long long)(STACKS_MIN * (double)total);
	write_frame(&w, &t, 0, 0);
	if (user)
		text_add(&w.out, "[user space] %llu\n", user);
	ret = write_file_atomic(path, w.out.s ? w.out.s : "", w.out.s ? strlen(w.out.s) : 0);
	if (ret < 0)
		error("profile: cannot write '%s'", path);
	free(w.out.s);
	free(t.hash);
	free(t.n);
	free(fid);
	return ret;
}
