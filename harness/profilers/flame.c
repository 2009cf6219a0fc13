/*
 * flame.c - flame graphs of the profiled runs' folded stacks (stacks.c) as SVG: a frame's
 * width is its instructions with its callees', its callees stacked above it. Of an A/B, the
 * differential one: the two sides' stacks merged, a frame as wide as the larger side, red
 * where the patched side ran more instructions in it (callees included), blue where fewer,
 * the deeper the colour the larger the change against the largest (or 1 % of the total
 * when that is smaller: an A/A's noise stays grey); a frame's tooltip gives
 * both sides and the delta. Frames narrower than FLAME_MIN of the total are left out.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profilers/stacks.h"
#include "util.h"

#define FLAME_W 1180.0		/* the frames' width in pixels */
#define FLAME_ROW 16
#define FLAME_MIN 0.001		/* of the total */
#define FLAME_DEPTH 80
#define FLAME_FULL 0.01		/* of the total: a change this large or larger is full colour */

struct frame {
	char *name;
	unsigned long long v[2];	/* instructions with callees: stock, patched (or one run) */
	struct frame **kid;
	size_t nkid;
};

static void frame_free(struct frame *f)
{
	size_t i;

	for (i = 0; i < f->nkid; i++)
		frame_free(f->kid[i]);
	free(f->kid);
	free(f->name);
	free(f);
}

static struct frame *kid_get(struct frame *f, const char *name, size_t len)
{
	struct frame *k;
	size_t i;

	for (i = 0; i < f->nkid; i++)
		if (strlen(f->kid[i]->name) == len && !memcmp(f->kid[i]->name, name, len))
			return f->kid[i];
	k = xcalloc(1, sizeof(*k));
	k->name = xasprintf("%.*s", (int)len, name);
	f->kid = xrealloc(f->kid, (f->nkid + 1) * sizeof(*f->kid));
	f->kid[f->nkid++] = k;
	return k;
}

/* @path's folded stacks into side @s of @root; -1 with an error */
static int add_folded(struct frame *root, const char *path, int s)
{
	char *text = NULL, *line, *save = NULL;

	if (read_file(path, &text, NULL) < 0)
		return error("profile: cannot read the folded stacks '%s'", path);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strrchr(line, ' '), *p, *semi;
		unsigned long long n;
		struct frame *f = root;
		int depth = 0;

		if (!sp || sscanf(sp + 1, "%llu", &n) != 1)
			continue;
		*sp = '\0';
		root->v[s] += n;
		for (p = line; *p && depth < FLAME_DEPTH; p = semi ? semi + 1 : p + strlen(p), depth++) {
			semi = strchr(p, ';');
			f = kid_get(f, p, semi ? (size_t)(semi - p) : strlen(p));
			f->v[s] += n;
			if (!semi)
				break;
		}
	}
	free(text);
	return 0;
}

struct svg {
	struct text t;
	double scale;		/* pixels an instruction */
	double maxd;		/* the largest |delta| of a frame below the root */
	int diff, height;
	unsigned long long min;
};

static unsigned long long wide(const struct frame *f)
{
	return f->v[0] > f->v[1] ? f->v[0] : f->v[1];
}

static void max_delta(struct svg *g, const struct frame *f, int depth)
{
	size_t i;

	if (depth && fabs((double)f->v[1] - (double)f->v[0]) > g->maxd)
		g->maxd = fabs((double)f->v[1] - (double)f->v[0]);
	for (i = 0; i < f->nkid; i++)
		if (wide(f->kid[i]) >= g->min)
			max_delta(g, f->kid[i], depth + 1);
}

static void colour(const struct svg *g, const struct frame *f, char *buf, size_t len)
{
	double d = (double)f->v[1] - (double)f->v[0], r;
	unsigned h = 0;
	const char *c;

	if (!g->diff) {	/* one run: the classic warm colours, steady per name */
		for (c = f->name; *c; c++)
			h = h * 31 + (unsigned char)*c;
		snprintf(buf, len, "rgb(%u,%u,%u)", 205 + h % 50, 80 + (h >> 8) % 130, 40 + (h >> 16) % 50);
		return;
	}
	r = g->maxd > 0 ? fmin(1.0, fabs(d) / g->maxd) : 0;	/* maxd: at least FLAME_FULL */
	if (r < 0.02)	/* no change worth a colour */
		snprintf(buf, len, "rgb(225,225,225)");
	else if (d > 0)
		snprintf(buf, len, "rgb(255,%d,%d)", (int)(220 - 190 * r), (int)(220 - 190 * r));
	else
		snprintf(buf, len, "rgb(%d,%d,255)", (int)(220 - 190 * r), (int)(220 - 190 * r));
}

static void draw(struct svg *g, const struct frame *f, double x, int depth)
{
	double w = (double)wide(f) * g->scale, kx = x;
	int y = g->height - (depth + 1) * FLAME_ROW - 4;
	size_t i, fit;
	char fill[32];

	colour(g, f, fill, sizeof(fill));
	text_add(&g->t, "<g><title>");
	text_esc(&g->t, depth ? f->name : "all");
	if (g->diff)
		text_add(&g->t, ": stock %llu, patched %llu, delta %+lld instructions", f->v[0], f->v[1],
			 (long long)(f->v[1] - f->v[0]));
	else
		text_add(&g->t, ": %llu instructions", f->v[0]);
	text_add(&g->t, "</title><rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
		   "fill=\"%s\" rx=\"2\"/>", x + 10, y, w, FLAME_ROW - 1, fill);
	fit = w > 14 ? (size_t)((w - 6) / 7) : 0;	/* about 7 px a character */
	if (fit >= 3) {
		const char *name = depth ? f->name : "all";
		size_t n = strlen(name);

		text_add(&g->t, "<text x=\"%.1f\" y=\"%d\">", x + 13, y + FLAME_ROW - 4);
		if (n > fit) {
			char *cut = xasprintf("%.*s..", (int)(fit - 2), name);

			text_esc(&g->t, cut);
			free(cut);
		} else {
			text_esc(&g->t, name);
		}
		text_add(&g->t, "</text>");
	}
	text_add(&g->t, "</g>\n");
	for (i = 0; i < f->nkid; i++) {
		if (wide(f->kid[i]) < g->min)
			continue;
		draw(g, f->kid[i], kx, depth + 1);
		kx += (double)wide(f->kid[i]) * g->scale;
	}
}

static int depth_of(const struct frame *f, unsigned long long min)
{
	int d = 0, k;
	size_t i;

	for (i = 0; i < f->nkid; i++)
		if (wide(f->kid[i]) >= min && (k = depth_of(f->kid[i], min)) > d)
			d = k;
	return d + 1;
}

int flame_svg(const char *svg_path, const char *stock_stacks, const char *patched_stacks)
{
	struct frame *root = xcalloc(1, sizeof(*root));
	struct svg g = { 0 };
	int ret = -1;

	root->name = xstrdup("all");
	g.diff = patched_stacks != NULL;
	if (add_folded(root, stock_stacks, 0) < 0 ||
	    (g.diff ? add_folded(root, patched_stacks, 1) : 0) < 0)
		goto free_frames;
	if (!g.diff)
		root->v[1] = root->v[0];
	if (!wide(root)) {
		error("profile: the folded stacks '%s' are empty", stock_stacks);
		goto free_frames;
	}
	g.min = (unsigned long long)(FLAME_MIN * (double)wide(root));
	g.scale = FLAME_W / (double)wide(root);
	g.height = depth_of(root, g.min) * FLAME_ROW + 40;
	max_delta(&g, root, 0);
	/* the noise of an A/A is not painted as the largest change */
	g.maxd = fmax(g.maxd, FLAME_FULL * (double)wide(root));
	text_add(&g.t, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"flame\" width=\"%d\" "
		   "height=\"%d\" font-family=\"monospace\" font-size=\"11\">\n",
		 (int)FLAME_W + 20, g.height);
	text_add(&g.t, "<text x=\"10\" y=\"14\" font-size=\"13\">%s</text>\n", g.diff ?
		 "Differential flame graph: width the larger side's instructions (callees included); "
		 "red: more on the patched side, blue: fewer (full colour: the largest change, at least "
		 "1 % of the total)" :
		 "Flame graph: width the instructions of a function with its callees");
	draw(&g, root, 0, 0);	/* the frames sit on the root, drawn from the bottom */
	text_add(&g.t, "</svg>\n");
	ret = write_file_atomic(svg_path, g.t.s, strlen(g.t.s));
	if (ret < 0)
		error("profile: cannot write '%s'", svg_path);
	free(g.t.s);
free_frames:
	frame_free(root);
	return ret;
}
