/*
 * insns-plugin.c - kpair's TCG plugin (built by scripts/build-profiler against the
 * qemu-plugin.h of the installed QEMU's own source package; loaded with -plugin).
 *
 * Counts the guest instructions executed per translation block: each block whose start
 * address is at or above kernel= gets an inline counter that adds the block's length every
 * time it runs (no callback, no sampling); every other block adds to one user-space
 * counter. At exit it writes out= as text, one line per block that ran:
 *
 *   # kpair-insns 1 <target>            first line
 *   <vaddr hex> <instructions>          a kernel block
 *   edge <site hex> <callee hex> <calls> <instructions>
 *   node <id> <parent id> <site hex> <callee hex> <self>   a calling context (0: the root)
 *   user <instructions>                 last line
 *
 * The edges come from a shadow call stack per vCPU, kept from the kernel's call
 * instructions (x86 E8 and FF /2, arm64 BL and BLR): a call pushes its return address,
 * the first block after it that is not a jump on (a static call's trampoline, a thunk) names
 * the callee, and a block that starts at a return address
 * on the stack pops to it (a context switch or a retpoline resynchronises there; user space
 * empties the stack). The frame that returned adds the kernel instructions executed while it
 * was on the stack to its edge: call site (the return address) -> callee, so the host can say
 * which caller's call made the difference (a new mdelay() in vfs_fsync_range, say); frames
 * above it that never returned (stack tricks: retpolines, return thunks, the return stack
 * filled at a context switch) and those left when user space runs add nothing; a call to a
 * few bytes on (those stack tricks' own) makes no frame at all. The same
 * stack names each block's calling context (the chain of callees down to it): the
 * instructions of every context, for the host's flame graphs.
 *
 * The host attributes blocks to functions with the guest's /proc/kallsyms (profile.c).
 * A block counts whole when it runs, even if an exception leaves it early; with several
 * vCPUs and no icount the inline adds can race (the precise mode runs one TCG thread).
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define CHUNK 65536

/* one translated block: a block retranslated at the same address with another length is another */
struct block {
	uint64_t vaddr;
	uint64_t insns;		/* added by the inline op: executions x length */
	uint32_t len;
	int stub;		/* a jump on (a static call's trampoline, a thunk's jmp *%reg) */
	struct block *next;	/* hash chain */
};

static struct block **table;	/* never moved: the inline ops point into the chunks */
static size_t table_size = 1 << 20;
static struct block *chunk;
static size_t chunk_used = CHUNK;
static struct block **chunks;
static size_t nchunks;
static uint64_t user_insns;
static uint64_t kernel_lo;
static char *out_path;
static const char *target = "?";
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int arch_x86 = 1, arch_64 = 1;	/* the call encodings to look for */

/* an edge of the call graph: call site (its return address) -> callee */
struct edge {
	uint64_t site, callee;
	uint64_t calls, insns;
	struct edge *next;
};

#define EDGE_TABLE (1 << 16)
#define STACK_MAX 512
#define MAX_VCPUS 64

static struct edge *edges[EDGE_TABLE];

/*
 * a calling context: the chain of calls (call site, callee) from an empty stack to here, and
 * the kernel instructions executed in it, not in its callees (the flame graph's frames); the
 * site says which function made the call, which a tail call makes another than the callee
 * of the context above
 */
struct node {
	struct node *parent;	/* NULL: the root, kernel code run with no call on the stack */
	uint64_t site, callee;
	uint64_t self;
	uint64_t id;
	int wanted;		/* written out: it or a descendant has instructions */
	struct node *next;	/* hash chain */
};

#define NODE_TABLE (1 << 18)
static struct node *nodes[NODE_TABLE];
static struct node root;
static uint64_t nnodes = 1;

struct frame {
	uint64_t site;		/* the return address */
	uint64_t callee;	/* 0 until the first block after the call */
	uint64_t start;		/* the vCPU's kernel instruction count at the call */
	struct node *ctx;	/* the calling context the call was made in */
};

struct vstack {
	struct frame f[STACK_MAX];
	int depth;
	uint64_t insns;		/* kernel instructions this vCPU executed (with callbacks) */
	struct node *ctx;	/* where its instructions go now (NULL: the root) */
};

static struct vstack stacks[MAX_VCPUS];
static uint64_t lost_frames;

/* the context @callee called at @site from @parent, made on its first call */
static struct node *node_get(struct node *parent, uint64_t site, uint64_t callee)
{
	uint64_t k = (uint64_t)(uintptr_t)parent * 0x9e3779b97f4a7c15ull ^
		     callee * 0xc2b2ae3d27d4eb4full ^ site * 0xff51afd7ed558ccdull;
	size_t h = (size_t)(((k ^ (k >> 29)) * 0x9e3779b97f4a7c15ull) >> 46) & (NODE_TABLE - 1);
	struct node *n;

	pthread_mutex_lock(&lock);
	for (n = nodes[h]; n; n = n->next)
		if (n->parent == parent && n->callee == callee && n->site == site)
			break;
	if (!n && (n = calloc(1, sizeof(*n)))) {
		n->parent = parent;
		n->site = site;
		n->callee = callee;
		n->id = nnodes++;
		n->next = nodes[h];
		nodes[h] = n;
	}
	pthread_mutex_unlock(&lock);
	return n ? n : parent;
}

static void edge_add(uint64_t site, uint64_t callee, uint64_t insns)
{
	size_t h = (size_t)(((site ^ (callee << 7)) * 0x9e3779b97f4a7c15ull) >> 48) &
		   (EDGE_TABLE - 1);
	struct edge *e;

	pthread_mutex_lock(&lock);
	for (e = edges[h]; e; e = e->next)
		if (e->site == site && e->callee == callee)
			break;
	if (!e) {
		e = calloc(1, sizeof(*e));
		if (!e) {
			pthread_mutex_unlock(&lock);
			return;
		}
		e->site = site;
		e->callee = callee;
		e->next = edges[h];
		edges[h] = e;
	}
	e->calls++;
	e->insns += insns;
	pthread_mutex_unlock(&lock);
}

/*
 * pop frames down to (and including) depth @to; only the frame at @to returned (and only when
 * @returned): the ones above it were left without a return (a retpoline's or a return thunk's
 * inner call, the return stack filled at a context switch, another task's frames) and what ran
 * while they sat there is not theirs, so they go without an edge
 */
static void pop_to(struct vstack *v, int to, int returned)
{
	struct frame *f;

	if (v->depth <= to)
		return;
	v->depth = to;
	f = &v->f[to];
	v->ctx = f->ctx;
	if (returned && f->callee)
		edge_add(f->site, f->callee, v->insns - f->start);
}

static void call_exec(unsigned int vcpu, void *udata)
{
	struct vstack *v = &stacks[vcpu % MAX_VCPUS];

	if (v->depth == STACK_MAX) {
		lost_frames++;
		return;
	}
	v->f[v->depth].site = (uint64_t)(uintptr_t)udata;
	v->f[v->depth].callee = 0;
	v->f[v->depth].start = v->insns;
	v->f[v->depth].ctx = v->ctx;
	v->depth++;
}

static void kernel_tb_exec(unsigned int vcpu, void *udata)
{
	struct vstack *v = &stacks[vcpu % MAX_VCPUS];
	struct block *b = udata;
	int i;

	/* a return: to the top frame's site, or deeper after a switch of stacks */
	for (i = v->depth - 1; i >= 0; i--)
		if (v->f[i].site == b->vaddr) {
			pop_to(v, i, 1);
			break;
		}
	/*
	 * the first block after a call that is not a jump on names the callee, of every frame
	 * still waiting for one (a retpoline's inner call too): the function, not its thunk
	 */
	if (i < 0 && v->depth && !v->f[v->depth - 1].callee && !b->stub) {
		for (i = v->depth - 1; i > 0 && !v->f[i - 1].callee; i--)
			;
		v->ctx = node_get(v->f[i].ctx ? v->f[i].ctx : &root, v->f[i].site, b->vaddr);
		for (; i < v->depth; i++)
			v->f[i].callee = b->vaddr;
	}
	v->insns += b->len;
	(v->ctx ? v->ctx : &root)->self += b->len;
}

static void user_tb_exec(unsigned int vcpu, void *udata)
{
	struct vstack *v = &stacks[vcpu % MAX_VCPUS];

	(void)udata;
	if (v->depth)
		pop_to(v, 0, 0);	/* back in user space: what is left never returned */
	v->ctx = NULL;
}

/* arm64: the instruction's word (0, no instruction we look for, when it is not 4 bytes) */
static uint32_t a64_word(const uint8_t *p, size_t n)
{
	return n != 4 ? 0 : (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
			    (uint32_t)p[3] << 24;
}

/* x86: where the opcode starts, after segment hints, REX on x86_64 and, with @rep, F3 */
static size_t x86_opcode(const uint8_t *p, size_t n, int rep)
{
	size_t i = 0;

	while (i < n && (p[i] == 0x2e || p[i] == 0x3e || (rep && p[i] == 0xf3) ||
			 (arch_64 && (p[i] & 0xf0) == 0x40)))
		i++;
	return i;
}

/* is the instruction @insn an unconditional jump or a return? */
static int is_jump(struct qemu_plugin_insn *insn)
{
	const uint8_t *p = qemu_plugin_insn_data(insn);
	size_t n = qemu_plugin_insn_size(insn), i;

	if (!arch_x86) {	/* arm64: B imm26, BR Xn, RET */
		uint32_t w = a64_word(p, n);

		return (w & 0xfc000000u) == 0x14000000u || (w & 0xfffffc1fu) == 0xd61f0000u ||
		       (w & 0xfffffc1fu) == 0xd65f0000u;
	}
	i = x86_opcode(p, n, 1);
	if (i < n && (p[i] == 0xe9 || p[i] == 0xeb || p[i] == 0xc3 || p[i] == 0xc2))
		return 1;
	return i + 1 < n && p[i] == 0xff && ((p[i + 1] >> 3) & 7) == 4;
}

/*
 * is the instruction @insn a call? 1 yes, -1 a call to a few bytes on (a retpoline's or the
 * return stack filling's: it pushes an address that is never returned to), 0 no
 */
static int is_call(struct qemu_plugin_insn *insn)
{
	const uint8_t *p = qemu_plugin_insn_data(insn);
	size_t n = qemu_plugin_insn_size(insn), i;

	if (!arch_x86) {	/* arm64: BL imm26, BLR Xn */
		uint32_t w = a64_word(p, n);

		return (w & 0xfc000000u) == 0x94000000u || (w & 0xfffffc1fu) == 0xd63f0000u;
	}
	i = x86_opcode(p, n, 0);
	if (i + 5 <= n && p[i] == 0xe8) {
		int32_t rel = (int32_t)((uint32_t)p[i + 1] | (uint32_t)p[i + 2] << 8 |
					(uint32_t)p[i + 3] << 16 | (uint32_t)p[i + 4] << 24);

		/* a call a few bytes on is a stack trick, not a call that returns */
		return rel >= 0 && rel < 64 ? -1 : 1;
	}
	return i + 1 < n && p[i] == 0xff && ((p[i + 1] >> 3) & 7) == 2;
}

static struct block *block_get(uint64_t vaddr, uint32_t len)
{
	size_t h = (size_t)((vaddr * 0x9e3779b97f4a7c15ull) >> 40) & (table_size - 1);
	struct block *b;

	for (b = table[h]; b; b = b->next)
		if (b->vaddr == vaddr && b->len == len)
			return b;
	if (chunk_used == CHUNK) {
		chunk = calloc(CHUNK, sizeof(*chunk));
		chunks = realloc(chunks, (nchunks + 1) * sizeof(*chunks));
		if (!chunk || !chunks)
			return NULL;
		chunks[nchunks++] = chunk;
		chunk_used = 0;
	}
	b = &chunk[chunk_used++];
	b->vaddr = vaddr;
	b->len = len;
	b->next = table[h];
	table[h] = b;
	return b;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t vaddr = qemu_plugin_tb_vaddr(tb);
	size_t n = qemu_plugin_tb_n_insns(tb);
	struct block *b = NULL;
	struct qemu_plugin_insn *last;
	int call;

	(void)id;
	if (vaddr >= kernel_lo) {
		pthread_mutex_lock(&lock);
		b = block_get(vaddr, (uint32_t)n);
		pthread_mutex_unlock(&lock);
	}
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 b ? &b->insns : &user_insns, n);
	if (!b) {
		qemu_plugin_register_vcpu_tb_exec_cb(tb, user_tb_exec, QEMU_PLUGIN_CB_NO_REGS, NULL);
		return;
	}
	qemu_plugin_register_vcpu_tb_exec_cb(tb, kernel_tb_exec, QEMU_PLUGIN_CB_NO_REGS, b);
	if (!n)
		return;
	last = qemu_plugin_tb_get_insn(tb, n - 1);
	call = is_call(last);
	/* a block of one or two instructions (an endbr before it) that only jumps on */
	if (n <= 2)
		b->stub = call < 0 || is_jump(last);
	if (call > 0)	/* a call ends its block */
		qemu_plugin_register_vcpu_insn_exec_cb(last, call_exec, QEMU_PLUGIN_CB_NO_REGS,
			(void *)(uintptr_t)(qemu_plugin_insn_vaddr(last) + qemu_plugin_insn_size(last)));
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
	FILE *f = fopen(out_path, "w");
	size_t i, j;

	(void)id;
	(void)p;
	if (!f) {
		qemu_plugin_outs("kpair-insns: cannot write the profile\n");
		return;
	}
	fprintf(f, "# kpair-insns 1 %s\n", target);
	for (i = 0; i < nchunks; i++)
		for (j = 0; j < (i + 1 == nchunks ? chunk_used : CHUNK); j++)
			if (chunks[i][j].insns)
				fprintf(f, "%" PRIx64 " %" PRIu64 "\n", chunks[i][j].vaddr,
					chunks[i][j].insns);
	for (i = 0; i < EDGE_TABLE; i++) {
		struct edge *e;

		for (e = edges[i]; e; e = e->next)
			fprintf(f, "edge %" PRIx64 " %" PRIx64 " %" PRIu64 " %" PRIu64 "\n", e->site,
				e->callee, e->calls, e->insns);
	}
	/* the contexts with instructions and their ancestors (in no order: ids name parents) */
	for (i = 0; i < NODE_TABLE; i++) {
		struct node *n, *a;

		for (n = nodes[i]; n; n = n->next)
			for (a = n->self ? n : NULL; a && !a->wanted; a = a->parent)
				a->wanted = 1;
	}
	fprintf(f, "node 0 0 0 0 %" PRIu64 "\n", root.self);
	for (i = 0; i < NODE_TABLE; i++) {
		struct node *n;

		for (n = nodes[i]; n; n = n->next)
			if (n->wanted)
				fprintf(f, "node %" PRIu64 " %" PRIu64 " %" PRIx64 " %" PRIx64
					" %" PRIu64 "\n", n->id, n->parent ? n->parent->id : 0,
					n->site, n->callee, n->self);
	}
	fprintf(f, "lost %" PRIu64 "\n", lost_frames);
	fprintf(f, "user %" PRIu64 "\n", user_insns);
	fclose(f);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	int i, have_lo = 0;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			out_path = strdup(argv[i] + 4);
		} else if (!strncmp(argv[i], "kernel=", 7)) {
			kernel_lo = strtoull(argv[i] + 7, NULL, 0);
			have_lo = 1;
		} else {
			fprintf(stderr, "kpair-insns: unknown argument '%s' (out=FILE, kernel=ADDR)\n",
				argv[i]);
			return -1;
		}
	}
	if (!out_path || !have_lo) {
		fprintf(stderr, "kpair-insns: out=FILE and kernel=ADDR are required\n");
		return -1;
	}
	if (info && info->target_name)
		target = info->target_name;
	arch_x86 = !strncmp(target, "x86_64", 6) || !strncmp(target, "i386", 4);
	arch_64 = strcmp(target, "i386") != 0;
	table = calloc(table_size, sizeof(*table));
	if (!table)
		return -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
