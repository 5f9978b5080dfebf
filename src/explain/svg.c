/*
 * svg.c - explain.c's graph as SVG, laid out here: --svg and --html need
 * no Graphviz, so a machine without it, or a browser build that runs no
 * program, draws the same picture.
 *
 * The layout is what the dot graph asks Graphviz for.  The caption at
 * the top, then the initial values in a dotted frame of their own, then
 * one column per process, its name above it and its events in program
 * order downwards, po the straight grey line between them.
 *
 * Other edges are level where they meet a box.  Between neighbouring
 * columns, a gentle curve from the side of one box that faces the other
 * to the facing side of the other, through the gap between them.  Edges
 * that would cross a column's boxes are routed round them, in lines with
 * rounded corners: to or from an initial value, along the gap under the
 * initial values and the gap beside its event's column; between
 * columns with others between them, along the gap under a row.  An edge
 * within one column leaves by the side, the right going down and the
 * left going up, bowed out by how many rows it spans and past the edges
 * it would overlap there, so that it misses the po line and the others;
 * the columns are spaced to leave room for them and their labels.  The
 * edges that meet one side of a box share it evenly, in the order of
 * where they come from, so that two edges between the same boxes run
 * side by side and arrowheads do not meet.
 *
 * Text is measured as monospace, a character being 0.6 of the font's
 * size wide, and centred in its box so that the estimate's error shows
 * on both sides alike.  Arrowheads are one <marker> per colour.
 * Coordinates are whole pixels: the same graph gives the same bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "explain.h"

enum {
	FONT = 12,		/* the boxes' text, monospace */
	CHAR_TENTHS = 72,	/* its character's width, in tenths of a pixel */
	LINE = 15,		/* its line's height */
	PAD = 6,		/* around a box's text */
	MARGIN = 16,
	CAPTION = 32,		/* the caption's line, sans-serif */
	CAPTION_FONT = 14,
	HEADER = 26,		/* a process' name and the gap under it */
	ROW_GAP = 44,		/* between a column's boxes: the po line and its label */
	COL_GAP = 60,		/* between columns, besides their side curves */
	BOX_GAP = 16,		/* between initial values */
	BULGE = 24,		/* how far a side curve reaches out, at least */
	RADIUS = 10,		/* a routed edge's corners */
};

struct box {
	int x, y, w, h;		/* top left corner, size */
};

struct point {
	double x, y;
};

/*
 * An edge's path: a cubic curve (its ends and control points) or lines
 * through n points, the corners rounded; its label's place and anchor.
 */
struct curve {
	bool cubic;
	int n;
	struct point p[6];
	struct point label;
	const char *anchor;
};

enum side { LEFT, RIGHT, BOTTOM };

struct layout {
	struct box *boxes;	/* a node's */
	int *row;		/* a node's place in its process' program order */
	int *side;		/* an edge's within one column: 1 right, -1 left; 0 across */
	enum side *ends;	/* where edge i meets its boxes: ends[2 * i] its start's */
	struct point *ports;	/* ... and the points */
	int *bulge;		/* how far out a side curve reaches */
	int *col_x, *col_w;	/* a process' column */
	int *room_left, *room_right;	/* for the side curves and their labels */
	int events_y, pitch;	/* the first row's top, from one row to the next */
	struct box init;	/* the initial values' frame; w == 0: none */
	int header_y;		/* the processes' names' baseline */
	int ncurves;
	struct curve *curves;	/* po first, then each edge's */
	const struct graph_edge **of;	/* a curve's edge, NULL for po */
	int width, height;
};

/* The length of the UTF-8 character at s, or 0 when its bytes are not one. */
static int utf8_length(const unsigned char *s)
{
	int n = *s < 0x80 ? 1 : *s < 0xc2 ? 0 : *s < 0xe0 ? 2 : *s < 0xf0 ? 3 : *s < 0xf5 ? 4 : 0;
	unsigned char lo = *s == 0xe0 ? 0xa0 : *s == 0xf0 ? 0x90 : 0x80;
	unsigned char hi = *s == 0xed ? 0x9f : *s == 0xf4 ? 0x8f : 0xbf;
	int i;

	for (i = 1; i < n; i++, lo = 0x80, hi = 0xbf)
		if (s[i] < lo || s[i] > hi)
			return 0;
	return n;
}

static const char *xml_entity(char c)
{
	return c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : c == '"' ? "&quot;" :
	       NULL;
}

/*
 * The n bytes at s as XML text: markup escaped, what XML cannot hold (a
 * control character, bytes that are not UTF-8) one U+FFFD each.  How many
 * characters, when out is NULL: the text's width.
 */
static int xml_text(const char *s, size_t n, struct strbuf *out)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;
	int chars = 0, len;

	for (; i < n; i += len ? len : 1, chars++) {
		len = utf8_length(u + i);
		if (!out)
			continue;
		if (!len || (u[i] < ' ' && u[i] != '\t'))
			sb_adds(out, "&#xfffd;");
		else if (xml_entity(s[i]))
			sb_adds(out, xml_entity(s[i]));
		else
			sb_add(out, s + i, len);
	}
	return chars;
}

static int text_width(const char *s, size_t n, int font)
{
	return (xml_text(s, n, NULL) * CHAR_TENTHS * font / FONT + 9) / 10;
}

static int px(double v)
{
	return (int)(v < 0 ? v - 0.5 : v + 0.5);
}

/* A box big enough for the label's lines. */
static struct box box_for(const char *label)
{
	struct box b = { 0, 0, 0, 2 * PAD };
	size_t len;

	for (;; label += len + 1) {
		len = strcspn(label, "\n");
		if (text_width(label, len, FONT) + 2 * PAD > b.w)
			b.w = text_width(label, len, FONT) + 2 * PAD;
		b.h += LINE;
		if (!label[len])
			return b;
	}
}

static bool in_column(const struct graph *g, const struct graph_edge *e)
{
	return g->nodes[e->from].proc >= 0 && g->nodes[e->from].proc == g->nodes[e->to].proc;
}

static int min_int(int a, int b)
{
	return a < b ? a : b;
}

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

/*
 * The side an edge within a column takes, and how far out: past the
 * side curves before it whose rows overlap its own; the room its column
 * then needs on that side.
 */
static void place_side_curves(const struct graph *g, struct layout *l)
{
	int i, j;

	for (i = 0; i < g->nedges; i++) {
		const struct graph_edge *e = &g->edges[i];
		int a = l->row[e->from], b = l->row[e->to], col = g->nodes[e->from].proc;
		int *room, reach;

		if (!in_column(g, e))
			continue;
		l->side[i] = b >= a ? 1 : -1;
		l->bulge[i] = BULGE + 10 * abs(b - a);
		for (j = 0; j < i; j++) {
			const struct graph_edge *f = &g->edges[j];

			if (l->side[j] == l->side[i] && g->nodes[f->from].proc == col &&
			    min_int(l->row[f->from], l->row[f->to]) <= max_int(a, b) &&
			    max_int(l->row[f->from], l->row[f->to]) >= min_int(a, b))
				l->bulge[i] = max_int(l->bulge[i], l->bulge[j] + 20);
		}
		room = l->side[i] > 0 ? &l->room_right[col] : &l->room_left[col];
		reach = l->bulge[i] + 6 + text_width(e->label, strlen(e->label), FONT);
		*room = max_int(*room, reach);
	}
}

/*
 * The columns' widths and places, left to right, with a gap beside each
 * for the edges routed down it; the width they take.
 */
static int place_columns(const struct graph *g, struct layout *l)
{
	int i, proc, x = COL_GAP / 2;

	for (proc = 0; proc < g->nprocs; proc++)
		l->col_w[proc] = 2 * CAPTION_FONT;
	for (i = 0; i < g->nnodes; i++)
		if (g->nodes[i].proc >= 0)
			l->col_w[g->nodes[i].proc] = max_int(l->col_w[g->nodes[i].proc],
							     l->boxes[i].w);
	for (proc = 0; proc < g->nprocs; proc++) {
		x += l->room_left[proc];
		l->col_x[proc] = x;
		x += l->col_w[proc] + l->room_right[proc] + COL_GAP;
	}
	return x - COL_GAP / 2;
}

/* The initial values in a row, in their frame at y, from x = 0; how many. */
static int place_init(const struct graph *g, struct layout *l, int y)
{
	int i;

	l->init = (struct box){ 0, y, PAD, 0 };
	for (i = 0; i < g->nnodes && g->nodes[i].proc < 0; i++) {
		l->boxes[i].x = l->init.w;
		l->boxes[i].y = y + LINE + 2 * PAD;
		l->init.w += l->boxes[i].w + BOX_GAP;
		l->init.h = max_int(l->init.h, LINE + 3 * PAD + l->boxes[i].h);
	}
	l->init.w = i ? l->init.w + PAD - BOX_GAP : 0;
	return i;
}

/* The events' boxes, by column and row from x, y. */
static void place_events(const struct graph *g, struct layout *l, int first, int x, int y)
{
	int i, pitch = 0;

	for (i = first; i < g->nnodes; i++)
		pitch = max_int(pitch, l->boxes[i].h + ROW_GAP);
	l->events_y = y;
	l->pitch = pitch;
	for (i = 0; i < g->nprocs; i++)
		l->col_x[i] += x;
	for (i = first; i < g->nnodes; i++) {
		struct box *b = &l->boxes[i];
		int proc = g->nodes[i].proc;

		b->x = l->col_x[proc] + (l->col_w[proc] - b->w) / 2;
		b->y = y + l->row[i] * pitch + (pitch - ROW_GAP - b->h) / 2;
		l->height = max_int(l->height, b->y + b->h + MARGIN);
	}
}

static struct point centre(struct box b)
{
	return (struct point){ b.x + b.w / 2.0, b.y + b.h / 2.0 };
}

/*
 * The side of its box end j (of edge j / 2, its start when j is even)
 * meets: an initial value's bottom; within a column, its side (right
 * going down, left going up); else the side facing the other end.
 */
static enum side end_side(const struct graph *g, const struct layout *l, int j)
{
	const struct graph_edge *e = &g->edges[j / 2];
	int n = j % 2 ? e->to : e->from, m = j % 2 ? e->from : e->to;

	if (g->nodes[n].proc < 0)
		return BOTTOM;
	if (l->side[j / 2])
		return l->side[j / 2] > 0 ? RIGHT : LEFT;
	return centre(l->boxes[m]).x < centre(l->boxes[n]).x ? LEFT : RIGHT;
}

/* Where the other end of end j's edge is, along end j's side. */
static double across_side(const struct graph *g, const struct layout *l, int j)
{
	const struct graph_edge *e = &g->edges[j / 2];
	struct point other = centre(l->boxes[j % 2 ? e->from : e->to]);

	return l->ends[j] == BOTTOM ? other.x : other.y;
}

static bool rightwards(const struct graph *g, const struct layout *l, int j)
{
	const struct graph_edge *e = &g->edges[j / 2];

	return centre(l->boxes[e->from]).x < centre(l->boxes[e->to]).x;
}

/*
 * Whether end i comes before end j on their side of a box: by where their other ends are, edges
 * going right before those going left, then as listed; so that edges
 * between the same boxes run side by side and arrowheads do not meet.
 */
static bool end_before(const struct graph *g, const struct layout *l, int i, int j)
{
	if (across_side(g, l, i) != across_side(g, l, j))
		return across_side(g, l, i) < across_side(g, l, j);
	if (rightwards(g, l, i) != rightwards(g, l, j))
		return rightwards(g, l, i);
	return i < j;
}

/* Where end j meets its box: its side shared evenly among the ends there, in order. */
static struct point port(const struct graph *g, const struct layout *l, int j)
{
	const struct graph_edge *e = &g->edges[j / 2];
	int node = j % 2 ? e->to : e->from, n = 0, k = 0, i;
	struct box b = l->boxes[node];

	for (i = 0; i < 2 * g->nedges; i++) {
		const struct graph_edge *f = &g->edges[i / 2];

		if ((i % 2 ? f->to : f->from) != node || l->ends[i] != l->ends[j])
			continue;
		n++;
		k += end_before(g, l, i, j);
	}
	switch (l->ends[j]) {
	case LEFT:
		return (struct point){ b.x, b.y + b.h * (k + 1.0) / (n + 1) };
	case RIGHT:
		return (struct point){ b.x + b.w, b.y + b.h * (k + 1.0) / (n + 1) };
	default:
		return (struct point){ b.x + b.w * (k + 1.0) / (n + 1), b.y + b.h };
	}
}

static double distance(double a, double b)
{
	return a < b ? b - a : a - b;
}

/*
 * A curve's control point for its end p on side s: level with p, out
 * into the gap between the columns, further when the other end is far.
 */
static struct point control(enum side s, struct point p, struct point other)
{
	double d = distance(p.x, other.x) / 3 > COL_GAP / 2.0 ? distance(p.x, other.x) / 3 :
		   COL_GAP / 2.0;

	return (struct point){ p.x + (s == LEFT ? -d : s == RIGHT ? d : 0), p.y };
}

/*
 * An edge between neighbouring columns, its label above it a third of
 * the way: two edges that cross between the same columns have their
 * labels apart.
 */
static struct curve across(const struct layout *l, int i)
{
	struct point a = l->ports[2 * i], b = l->ports[2 * i + 1];
	struct point c1 = control(l->ends[2 * i], a, b);
	struct point c2 = control(l->ends[2 * i + 1], b, a);
	struct curve k = { true, 4, { a, c1, c2, b },
			   { (8 * a.x + 12 * c1.x + 6 * c2.x + b.x) / 27,
			     (8 * a.y + 12 * c1.y + 6 * c2.y + b.y) / 27 - 4 }, "middle" };

	return k;
}

/* An edge within a column, out by its side past the others there; to itself, a loop. */
static struct curve aside(const struct graph *g, const struct layout *l, int i)
{
	int side = l->side[i], proc = g->nodes[g->edges[i].from].proc;
	double out = (side > 0 ? l->col_x[proc] + l->col_w[proc] : l->col_x[proc]) +
		     side * l->bulge[i] * 4 / 3.0;
	struct point a = l->ports[2 * i], b = l->ports[2 * i + 1];
	struct curve k = { true, 4, { a, { out, a.y }, { out, b.y }, b },
			   { (a.x + b.x) / 8 + out * 3 / 4 + side * 4, (a.y + b.y) / 2 + FONT / 3 },
			   side > 0 ? "start" : "end" };

	return k;
}

/* The po line from the box above: straight down the column's middle. */
static struct curve po_line(const struct layout *l, int from, int to)
{
	struct box a = l->boxes[from], b = l->boxes[to];
	double x = a.x + a.w / 2.0;
	struct curve k = { false, 2, { { x, a.y + a.h }, { x, b.y } },
			   { x + 4, (a.y + a.h + b.y) / 2.0 + FONT / 3 }, "start" };

	return k;
}

/* Routed edge t's offset from the middle of a gap, so that routed edges do not overlap. */
static double track(int t)
{
	return (t % 5 - 2) * 4;
}

/* The middle of the gap beside column c on side s: where routed edges go down. */
static double gutter(const struct layout *l, int c, enum side s)
{
	return s == LEFT ? l->col_x[c] - l->room_left[c] - COL_GAP / 2.0 :
	       l->col_x[c] + l->col_w[c] + l->room_right[c] + COL_GAP / 2.0;
}

/*
 * An edge between columns with others between them, routed round their
 * boxes: down the gap beside its first column to the gap under the
 * higher of its rows, along it, then up or down the gap beside its
 * last column; its label over the middle stretch.
 */
static struct curve over_columns(const struct graph *g, const struct layout *l, int i, int t)
{
	const struct graph_edge *e = &g->edges[i];
	struct point a = l->ports[2 * i], b = l->ports[2 * i + 1];
	double xa = gutter(l, g->nodes[e->from].proc, l->ends[2 * i]) + track(t);
	double xb = gutter(l, g->nodes[e->to].proc, l->ends[2 * i + 1]) + track(t);
	double y = l->events_y + (min_int(l->row[e->from], l->row[e->to]) + 1) * l->pitch -
		   ROW_GAP / 2.0 + track(t);
	struct curve k = { false, 6, { a, { xa, a.y }, { xa, y }, { xb, y }, { xb, b.y }, b },
			   { (xa + xb) / 2, y - 4 }, "middle" };

	return k;
}

/*
 * An edge between an initial value and an event (the cycle may go back
 * to the store a load read): along the gap under the initial values and
 * the gap beside the event's column (missing the column's name and the
 * boxes above); its label over the stretch at the event's box.
 */
static struct curve via_init(const struct graph *g, const struct layout *l, int i, int t)
{
	const struct graph_edge *e = &g->edges[i];
	int to_init = g->nodes[e->to].proc < 0, ev = 2 * i + !to_init;
	struct point a = l->ports[2 * i + to_init], b = l->ports[ev];
	double x = gutter(l, g->nodes[to_init ? e->from : e->to].proc, l->ends[ev]) + track(t);
	double y = l->init.y + l->init.h + ROW_GAP / 4.0 + track(t);
	struct curve k = { false, 5, { a, { a.x, y }, { x, y }, { x, b.y }, b },
			   { (x + b.x) / 2, b.y - 4 }, "middle" };
	int j;

	for (j = 0; to_init && j < 2; j++) {
		struct point p = k.p[j];

		k.p[j] = k.p[4 - j];
		k.p[4 - j] = p;
	}
	return k;
}

/*
 * Every edge's curve, po first: an edge within a column by its side,
 * one between neighbouring columns as a curve, others routed round the
 * boxes.  The picture is made tall enough for them and their labels.
 */
static void place_curves(const struct graph *g, struct layout *l)
{
	int i, j, n = 0, tracks = 0;

	l->curves = xcalloc(g->nnodes + g->nedges, sizeof(*l->curves));
	l->of = xcalloc(g->nnodes + g->nedges, sizeof(*l->of));
	for (i = 0; i < g->nnodes; i++)
		if (g->nodes[i].po_prev >= 0)
			l->curves[n++] = po_line(l, g->nodes[i].po_prev, i);
	for (i = 0; i < 2 * g->nedges; i++)
		l->ends[i] = end_side(g, l, i);
	for (i = 0; i < 2 * g->nedges; i++)
		l->ports[i] = port(g, l, i);
	for (i = 0; i < g->nedges; i++) {
		const struct graph_edge *e = l->of[n] = &g->edges[i];
		int a = g->nodes[e->from].proc, b = g->nodes[e->to].proc;

		if (l->side[i])
			l->curves[n++] = aside(g, l, i);
		else if (a >= 0 && b >= 0 && abs(a - b) > 1)
			l->curves[n++] = over_columns(g, l, i, tracks++);
		else if ((a < 0) != (b < 0))
			l->curves[n++] = via_init(g, l, i, tracks++);
		else
			l->curves[n++] = across(l, i);
	}
	l->ncurves = n;
	for (i = 0; i < n; i++) {
		l->height = max_int(l->height, px(l->curves[i].label.y) + MARGIN);
		for (j = 0; j < l->curves[i].n; j++)
			l->height = max_int(l->height, px(l->curves[i].p[j].y) + MARGIN);
	}
}

/*
 * Every box's and curve's place, the picture's size: the caption's
 * alone when there is no execution to draw.
 */
static void place(const struct graph *g, struct layout *l)
{
	int i, ninit, events_w, y = MARGIN + CAPTION, shift;

	l->width = text_width(g->caption, strlen(g->caption), CAPTION_FONT) + 2 * MARGIN;
	l->height = y;
	if (!g->drawn)
		return;
	for (i = 0; i < g->nnodes; i++) {
		l->boxes[i] = box_for(g->nodes[i].label);
		l->row[i] = g->nodes[i].po_prev < 0 ? 0 : l->row[g->nodes[i].po_prev] + 1;
	}
	place_side_curves(g, l);
	events_w = place_columns(g, l);
	ninit = place_init(g, l, y);
	l->width = max_int(l->width, max_int(events_w, l->init.w) + 2 * MARGIN);
	shift = (l->width - l->init.w) / 2;
	l->init.x += shift;
	for (i = 0; i < ninit; i++)
		l->boxes[i].x += shift;
	if (ninit)
		y += l->init.h + ROW_GAP / 2;
	l->header_y = y + CAPTION_FONT;
	place_events(g, l, ninit, (l->width - events_w) / 2, y + HEADER);
	place_curves(g, l);
}


/* One arrowhead per colour (markers take no colour from their path), named after the test. */
static void marker_id(const struct graph *g, const char *colour, struct strbuf *out)
{
	const char *s;

	sb_addf(out, "arrow-%s-", colour);
	for (s = g->name; *s; s++)
		sb_addf(out, "%c", strchr("-_.", *s) || (*s >= '0' && *s <= '9') ||
			((*s | 0x20) >= 'a' && (*s | 0x20) <= 'z') ? *s : '_');
}

static void markers(const struct graph *g, struct strbuf *out)
{
	int i, j;

	sb_adds(out, "<defs>\n");
	for (i = -1; i < g->nedges; i++) {
		const char *colour = i < 0 ? "gray" : g->edges[i].colour;

		for (j = -1; j < i && strcmp(j < 0 ? "gray" : g->edges[j].colour, colour); j++)
			;
		if (j < i)
			continue;
		sb_adds(out, "<marker id=\"");
		marker_id(g, colour, out);
		sb_addf(out, "\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"9\" "
			"markerHeight=\"9\" markerUnits=\"userSpaceOnUse\" orient=\"auto\">"
			"<path d=\"M0,0L10,5L0,10z\" fill=\"%s\"/></marker>\n", colour);
	}
	sb_adds(out, "</defs>\n");
}

static void point(const char *command, struct point p, struct strbuf *out)
{
	sb_addf(out, "%s%d,%d", command, px(p.x), px(p.y));
}

/* The length of a level or upright line. */
static double length(struct point a, struct point b)
{
	return distance(a.x, b.x) + distance(a.y, b.y);
}

/* The point r from c on its line to p. */
static struct point toward(struct point c, struct point p, double r)
{
	double len = length(c, p);

	return (struct point){ c.x + r * (p.x - c.x) / len, c.y + r * (p.y - c.y) / len };
}

/* Lines through k's points, level or upright, each corner rounded. */
static void corners(const struct curve *k, struct strbuf *out)
{
	int i;

	for (i = 1; i + 1 < k->n; i++) {
		struct point a = k->p[i - 1], c = k->p[i], b = k->p[i + 1];
		double r = length(a, c) < length(c, b) ? length(a, c) / 2 : length(c, b) / 2;

		if (!r)
			continue;
		r = r < RADIUS ? r : RADIUS;
		point(" L", toward(c, a, r), out);
		point(" Q", c, out);
		point(" ", toward(c, b, r), out);
	}
	point(" L", k->p[k->n - 1], out);
}

static void path(const struct graph *g, const struct curve *k, const char *colour,
		 const char *style, struct strbuf *out)
{
	point("<path d=\"M", k->p[0], out);
	if (k->cubic) {
		point(" C", k->p[1], out);
		point(" ", k->p[2], out);
		point(" ", k->p[3], out);
	} else {
		corners(k, out);
	}
	sb_addf(out, "\" stroke=\"%s\"%s marker-end=\"url(#", colour, style);
	marker_id(g, colour, out);
	sb_adds(out, ")\"/>\n");
}

static void label(const struct curve *k, const char *colour, const char *text,
		  struct strbuf *out)
{
	sb_addf(out, "<text class=\"label\" x=\"%d\" y=\"%d\" text-anchor=\"%s\" fill=\"%s\">",
		px(k->label.x), px(k->label.y), k->anchor, colour);
	xml_text(text, strlen(text), out);
	sb_adds(out, "</text>\n");
}

/* A box with its lines, centred. */
static void node(const char *text, struct box b, struct strbuf *out)
{
	size_t len;
	int y = b.y + PAD + FONT;

	sb_addf(out, "<g class=\"node\"><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
		"fill=\"white\" stroke=\"black\"/>", b.x, b.y, b.w, b.h);
	for (;; text += len + 1, y += LINE) {
		len = strcspn(text, "\n");
		sb_addf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">", b.x + b.w / 2, y);
		xml_text(text, len, out);
		sb_adds(out, "</text>");
		if (!text[len])
			break;
	}
	sb_adds(out, "</g>\n");
}

/* The initial values' frame, the processes' names, the boxes. */
static void nodes(const struct graph *g, const struct layout *l, struct strbuf *out)
{
	int i;

	if (l->init.w)
		sb_addf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
			"stroke=\"gray\" stroke-dasharray=\"2 3\"/>\n<text x=\"%d\" y=\"%d\" "
			"text-anchor=\"middle\" font-family=\"sans-serif\">initial values</text>\n",
			l->init.x, l->init.y, l->init.w, l->init.h, l->init.x + l->init.w / 2,
			l->init.y + PAD + FONT);
	for (i = 0; i < g->nprocs; i++)
		sb_addf(out, "<text class=\"process\" x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
			"font-family=\"sans-serif\" font-size=\"%d\" "
			"font-weight=\"bold\">P%d</text>\n",
			l->col_x[i] + l->col_w[i] / 2, l->header_y, CAPTION_FONT, i);
	for (i = 0; i < g->nnodes; i++)
		node(g->nodes[i].label, l->boxes[i], out);
}

/* The arrowheads; the curves' paths under the boxes, their labels over them, on a white halo. */
static void draw(const struct graph *g, const struct layout *l, struct strbuf *out)
{
	const struct graph_edge *const *of = l->of;
	int i;

	markers(g, out);
	sb_adds(out, "<g class=\"edges\" fill=\"none\">\n");
	for (i = 0; i < l->ncurves; i++)
		path(g, &l->curves[i], of[i] ? of[i]->colour : "gray",
		     !of[i] || !of[i]->marked ? "" : of[i]->dashed ?
		     " stroke-dasharray=\"6 4\"" : " stroke-width=\"2\"", out);
	sb_adds(out, "</g>\n");
	nodes(g, l, out);
	sb_adds(out, "<g class=\"labels\" font-family=\"sans-serif\" stroke=\"white\" "
		"stroke-width=\"3\" paint-order=\"stroke\">\n");
	for (i = 0; i < l->ncurves; i++)
		label(&l->curves[i], of[i] ? of[i]->colour : "gray", of[i] ? of[i]->label : "po",
		      out);
	sb_adds(out, "</g>\n");
}

static void layout_free(struct layout *l)
{
	free(l->boxes);
	free(l->row);
	free(l->side);
	free(l->bulge);
	free(l->ends);
	free(l->ports);
	free(l->col_x);
	free(l->col_w);
	free(l->room_left);
	free(l->room_right);
	free(l->curves);
	free(l->of);
}

void graph_svg(const struct graph *g, struct strbuf *out)
{
	struct layout l = { 0 };
	int procs = g->nprocs ? g->nprocs : 1, edges = g->nedges ? g->nedges : 1;

	l.boxes = xcalloc(g->nnodes ? g->nnodes : 1, sizeof(*l.boxes));
	l.row = xcalloc(g->nnodes ? g->nnodes : 1, sizeof(*l.row));
	l.side = xcalloc(edges, sizeof(*l.side));
	l.bulge = xcalloc(edges, sizeof(*l.bulge));
	l.ends = xcalloc(2 * edges, sizeof(*l.ends));
	l.ports = xcalloc(2 * edges, sizeof(*l.ports));
	l.col_x = xcalloc(procs, sizeof(*l.col_x));
	l.col_w = xcalloc(procs, sizeof(*l.col_w));
	l.room_left = xcalloc(procs, sizeof(*l.room_left));
	l.room_right = xcalloc(procs, sizeof(*l.room_right));
	place(g, &l);
	sb_addf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"monospace\" font-size=\"%d\">\n<title>",
		l.width, l.height, l.width, l.height, FONT);
	xml_text(g->caption, strlen(g->caption), out);
	sb_adds(out, "</title>\n");
	sb_addf(out, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
		"<text class=\"caption\" x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
		"font-family=\"sans-serif\" font-size=\"%d\">", l.width / 2, MARGIN + CAPTION_FONT,
		CAPTION_FONT);
	xml_text(g->caption, strlen(g->caption), out);
	sb_adds(out, "</text>\n");
	if (g->drawn)
		draw(g, &l, out);
	sb_adds(out, "</svg>\n");
	layout_free(&l);
}
