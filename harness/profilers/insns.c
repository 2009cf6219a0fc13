/*
 * insns.c - the instruction-count profiler: kpair's TCG plugin (insns-plugin.c, built by
 * scripts/build-profiler) counts the instructions each kernel translation block executes;
 * the guest sends its /proc/kallsyms text symbols on port org.kpair.symbols; this file
 * names each block's function (the nearest symbol at or below its address: the addresses
 * are the running kernel's, so KASLR and modules need nothing more) and writes
 * DIR/profile.json. In the precise (icount) mode the guest is deterministic: the counts
 * repeat from run to run, nothing is sampled.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "profilers/profiler.h"
#include "profilers/stacks.h"
#include "spawn.h"
#include "util.h"

#define INSNS_RAW "insns.txt"
#define SYMBOLS "kallsyms"

struct ksym {
	unsigned long long addr;
	char *name;		/* "name" or "name [module]" */
};

/* the lowest kernel address of each architecture's guests: blocks below are user space */
static const char *kernel_lo(const char *arch)
{
	if (!strcmp(arch, "amd64"))
		return "0xffff800000000000";
	if (!strcmp(arch, "arm64"))
		return "0xffff000000000000";
	if (!strcmp(arch, "i386"))
		return "0xc0000000";
	return NULL;
}

/* @s with QEMU's option escaping: a ',' doubled (caller frees) */
static char *qemu_escape(const char *s)
{
	char *o = xcalloc(2 * strlen(s) + 1, 1), *p = o;

	for (; *s; s++) {
		*p++ = *s;
		if (*s == ',')
			*p++ = ',';
	}
	return o;
}

/* images/tools/kpair-insns-<qemu>/kpair-insns.so, built when missing (caller frees) */
static char *plugin_path(void)
{
	char *script = xasprintf("%s/scripts/build-profiler", kpair_root()), *so = NULL;
	const char *argv[] = { "bash", script, NULL };
	struct spawn_result r = SPAWN_RESULT_INIT;

	if (spawn_run(argv, 900000, &r) < 0 || r.exit_code) {
		error("profile: %s failed (exit %d): %s", script, r.exit_code, r.err);
	} else {
		size_t n = strcspn(r.out, "\n");

		so = xasprintf("%.*s", (int)n, r.out);
		if (!n || !path_exists(so)) {
			error("profile: %s named no plugin ('%s')", script, so);
			free(so);
			so = NULL;
		}
	}
	spawn_result_release(&r);
	free(script);
	return so;
}

static int insns_prepare(const struct target *t, const char *dir, char **plugin, char **symbols)
{
	const char *lo = kernel_lo(t->arch);
	char *so, *out, *e1, *e2;

	if (!lo)
		return error("profile: no kernel address range known for architecture '%s'",
			     t->arch);
	so = plugin_path();
	if (!so)
		return -1;
	out = xasprintf("%s/%s", dir, INSNS_RAW);
	e1 = qemu_escape(so);
	e2 = qemu_escape(out);
	*plugin = xasprintf("file=%s,out=%s,kernel=%s", e1, e2, lo);
	*symbols = xasprintf("%s/%s", dir, SYMBOLS);
	unlink(out);
	unlink(*symbols);
	free(e2);
	free(e1);
	free(out);
	free(so);
	return 0;
}

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* where the guest's symbols and modules are, and what names an address */
struct symtab {
	struct ksym *s;		/* text symbols, sorted */
	size_t n, cap;
	struct ksym *mods;	/* modules: addr = base, name "[module NAME]" */
	unsigned long long *mod_end;
	size_t nmods;
	const char *from;	/* "kallsyms" or "System.map" */
	unsigned long long etext;	/* the end of the core kernel's text, or 0 */
};

static void symtab_release(struct symtab *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->s[i].name);
	for (i = 0; i < t->nmods; i++)
		free(t->mods[i].name);
	free(t->s);
	free(t->mods);
	free(t->mod_end);
}

static void add_sym(struct symtab *t, unsigned long long addr, const char *name, const char *mod)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 65536;
		t->s = xrealloc(t->s, t->cap * sizeof(*t->s));
	}
	t->s[t->n].addr = addr;
	t->s[t->n].name = *mod ? xasprintf("%s %s", name, mod) : xstrdup(name);
	t->n++;
}

/* "addr type name [module]" lines of text symbols; after "# modules", /proc/modules lines */
static void parse_symbols(struct symtab *t, char *text, int with_modules)
{
	char *line, *save = NULL;
	int in_modules = 0;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[256], mod[128] = "", state[32], deps[1024], type;
		unsigned long long addr, size, refs;

		if (!strcmp(line, "# modules")) {
			in_modules = 1;
		} else if (in_modules && with_modules &&
			   sscanf(line, "%255s %llu %llu %1023s %31s %llx", name, &size, &refs, deps,
				  state, &addr) == 6 && addr) {
			t->mods = xrealloc(t->mods, (t->nmods + 1) * sizeof(*t->mods));
			t->mod_end = xrealloc(t->mod_end, (t->nmods + 1) * sizeof(*t->mod_end));
			t->mods[t->nmods].addr = addr;
			t->mods[t->nmods].name = xasprintf("[module %s]", name);
			t->mod_end[t->nmods] = addr + size;
			t->nmods++;
		} else if (!in_modules &&
			   sscanf(line, "%llx %c %255s %127s", &addr, &type, name, mod) >= 3 &&
			   addr && (type == 't' || type == 'T')) {
			add_sym(t, addr, name, mod);
		}
	}
}

/*
 * The symbols the guest sent (/proc/kallsyms), or the kernel's System.map when it sent
 * none (a kernel without CONFIG_KALLSYMS; the profiled run boots with nokaslr, so its
 * link-time addresses hold); the modules' places either way. -1 with an error when none.
 */
static int load_symbols(const char *dir, const char *kernel_dir, struct symtab *t)
{
	char *path = xasprintf("%s/%s", dir, SYMBOLS), *text = NULL, *map = NULL;
	int ret = -1;

	memset(t, 0, sizeof(*t));
	if (!path_exists(path) || read_file(path, &text, NULL) < 0 || !*text) {
		error("profile: the guest sent no kernel symbols ('%s' is missing or empty: the "
		      "run ended before the workload did)", path);
		goto out;
	}
	parse_symbols(t, text, 1);
	t->from = "kallsyms";
	if (!t->n && kernel_dir) {
		char *mtext = NULL;

		map = xasprintf("%s/System.map", kernel_dir);
		if (path_exists(map) && read_file(map, &mtext, NULL) == 0)
			parse_symbols(t, mtext, 0);
		free(mtext);
		t->from = "System.map";
	}
	if (!t->n) {
		error("profile: no kernel symbols: the guest has no /proc/kallsyms (CONFIG_KALLSYMS "
		      "off) and '%s' has none (Debian's packaged System.map is a stub)",
		      map ? map : "the kernel's System.map");
		goto out;
	}
	qsort(t->s, t->n, sizeof(*t->s), ksym_cmp);
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->s[i].name, "_etext"))
			t->etext = t->s[i].addr;
	ret = 0;
out:
	free(map);
	free(text);
	free(path);
	return ret;
}

static const char *ksym_name(const struct symtab *t, unsigned long long addr)
{
	size_t lo = 0, hi = t->n, i;
	const char *mod = NULL;

	for (i = 0; i < t->nmods; i++)
		if (addr >= t->mods[i].addr && addr < t->mod_end[i])
			mod = t->mods[i].name;
	if (!t->n || addr < t->s[0].addr)
		return mod ? mod : "[kernel, no symbol]";
	while (hi - lo > 1) {	/* the last symbol at or below @addr */
		size_t mid = lo + (hi - lo) / 2;

		if (t->s[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	/* in a module whose functions the symbols do not name: the module's bucket */
	if (mod && !strchr(t->s[lo].name, '['))
		return mod;
	/* past the core's text and in no module (trampolines, BPF): no function of ours */
	if (!mod && t->etext && addr >= t->etext && !strchr(t->s[lo].name, '['))
		return "[kernel, no symbol]";
	return t->s[lo].name;
}

static const char *cct_name(void *syms, unsigned long long addr)
{
	return ksym_name(syms, addr);
}

/* "node ID PARENT SITE CALLEE SELF": a calling context into @c, by id */
static void cct_add(struct cct *c, const char *line)
{
	unsigned long long id, parent, site, callee, self;

	if (sscanf(line, "%llu %llu %llx %llx %llu", &id, &parent, &site, &callee, &self) != 5 ||
	    id > 1u << 26)
		return;
	if (id >= c->n) {
		size_t n = c->n ? c->n : 4096, i;

		while (n <= id)
			n *= 2;
		c->parent = xrealloc(c->parent, n * sizeof(*c->parent));
		c->site = xrealloc(c->site, n * sizeof(*c->site));
		c->callee = xrealloc(c->callee, n * sizeof(*c->callee));
		c->self = xrealloc(c->self, n * sizeof(*c->self));
		for (i = c->n; i < n; i++)
			c->parent[i] = c->site[i] = c->callee[i] = c->self[i] = 0;
		c->n = n;
	}
	c->parent[id] = parent <= 1u << 26 ? parent : 0;
	c->site[id] = site;
	c->callee[id] = callee;
	c->self[id] = self;
}

static int insns_collect(const char *dir, const char *kernel_dir)
{
	char *path = xasprintf("%s/%s", dir, INSNS_RAW), *text = NULL, *line, *save = NULL;
	unsigned long long kernel = 0, user = 0, blocks = 0, lost = 0;
	json_t *funcs = json_object(), *calls = json_object(), *j;
	struct symtab syms = { 0 };
	struct cct cct = { .name = cct_name, .ctx = &syms };
	int ret = -1, header = 0;
	char *stacks = NULL;

	if (!path_exists(path) || read_file(path, &text, NULL) < 0) {
		error("profile: QEMU wrote no instruction counts ('%s': the plugin did not load or "
		      "QEMU did not exit by itself; qemu.log says which)", path);
		goto out;
	}
	if (load_symbols(dir, kernel_dir, &syms) < 0)
		goto out;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long a, c;

		if (!strncmp(line, "# kpair-insns 1 ", 16)) {
			header = 1;
		} else if (sscanf(line, "user %llu", &c) == 1) {
			user = c;
		} else if (sscanf(line, "lost %llu", &c) == 1) {
			lost = c;
		} else if (!strncmp(line, "node ", 5)) {
			cct_add(&cct, line + 5);
		} else if (!strncmp(line, "edge ", 5)) {
			unsigned long long site, callee, n;
			char *key;
			json_t *e;

			if (sscanf(line + 5, "%llx %llx %llu %llu", &site, &callee, &n, &c) != 4)
				continue;
			/* the caller is the function holding the call, just before its return address */
			key = xasprintf("%s -> %s", ksym_name(&syms, site - 1), ksym_name(&syms, callee));
			e = json_object_get(calls, key);
			if (!e) {
				e = json_pack("{s:I, s:I}", "calls", (json_int_t)0, "insns", (json_int_t)0);
				json_object_set_new(calls, key, e);
			}
			json_object_set_new(e, "calls", json_integer(json_integer_value(
				json_object_get(e, "calls")) + (json_int_t)n));
			json_object_set_new(e, "insns", json_integer(json_integer_value(
				json_object_get(e, "insns")) + (json_int_t)c));
			free(key);
		} else if (sscanf(line, "%llx %llu", &a, &c) == 2) {
			const char *name = ksym_name(&syms, a);
			json_t *v = json_object_get(funcs, name);

			json_object_set_new(funcs, name,
					    json_integer((v ? json_integer_value(v) : 0) + (json_int_t)c));
			kernel += c;
			blocks++;
		}
	}
	if (!header) {
		error("profile: '%s' is not the plugin's output (no '# kpair-insns 1' line)", path);
		goto out;
	}
	j = json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:s, s:I, s:O}", "profiler", "insns",
		      "unit", "instructions", "total", (json_int_t)(kernel + user),
		      "kernel", (json_int_t)kernel, "user", (json_int_t)user,
		      "blocks", (json_int_t)blocks, "symbols", (json_int_t)syms.n,
		      "symbols_from", syms.from, "modules", (json_int_t)syms.nmods,
		      "functions", funcs);
	if (j) {	/* the call graph's edges: caller -> callee, calls and inclusive instructions */
		json_object_set(j, "calls", calls);
		json_object_set_new(j, "lost_frames", json_integer((json_int_t)lost));
	}
	/* the calling contexts as folded stacks, for flame graphs (a plugin of before: none) */
	stacks = xasprintf("%s/%s", dir, STACKS_FILE);
	if (j && cct.n && stacks_write(stacks, &cct, user) == 0) {
		char *svg = xasprintf("%s/%s", dir, FLAME_FILE);

		json_object_set_new(j, "stacks", json_string(STACKS_FILE));
		if (flame_svg(svg, stacks, NULL) == 0)
			json_object_set_new(j, "flame", json_string(FLAME_FILE));
		free(svg);
	}
	free(path);
	path = xasprintf("%s/profile.json", dir);
	ret = j ? write_json_atomic(path, j) : error("profile: cannot encode profile.json");
	json_decref(j);
out:
	free(stacks);
	free(cct.parent);
	free(cct.site);
	free(cct.callee);
	free(cct.self);
	symtab_release(&syms);
	json_decref(calls);
	json_decref(funcs);
	free(text);
	free(path);
	return ret;
}

const struct profiler profiler_insns = {
	.name = "insns",
	.summary = "instructions executed per kernel function (TCG plugin, exact counts)",
	.prepare = insns_prepare,
	.collect = insns_collect,
};
