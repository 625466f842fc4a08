/* Metric expressions: a recursive-descent parser into a flat node array,
 * and an evaluator over one value per reference.
 *
 * Grammar, lowest precedence first (perf's MetricExpr and Intel perfmon's
 * Formula strings both fit):
 *   expr    := or [ 'if' or 'else' expr ]       (right-associative)
 *   or      := and { ('|' | '||') and }
 *   and     := cmp { ('&' | '&&') cmp }
 *   cmp     := add [ ('<' | '>' | '<=' | '>=' | '==' | '!=') add ]
 *   add     := mul { ('+' | '-') mul }
 *   mul     := unary { ('*' | '/' | '%') unary }
 *   unary   := ('-' | '+' | '!') unary | primary
 *   primary := number | name | '(' expr ')' | func '(' expr { ',' expr } ')'
 *   func    := min | max (two or more arguments) | d_ratio (two)
 *              | has_event (one: 1 when its argument has a value, else 0)
 *              | source_count '(' name ')'  (perf's: how many PMU instances
 *                the event's counts came from, cha_0..cha_N), a reference
 *                of its own, spelled "#source_count(name)" in refs[]
 * Names: a letter, '_' or '#' first, then letters, digits, '_', '.', ':';
 * '\' takes the next character literally (perf writes topdown\-fe\-bound);
 * '@' starts a verbatim part up to the next '@' (cpu_core@EVENT\,cmask\=1@).
 * `if` and `else` are keywords; bare `smt_on` is the literal #smt_on.
 *
 * Invariants: nodes refer to earlier nodes only by index; every reference
 * name is stored once (refs[]), in order of first appearance; nesting is
 * bounded (MAX_DEPTH) so hostile input cannot exhaust the stack, both when
 * parsing and when evaluating. */
#include <pmukit/metrics.h>

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/util.h"

#define SUBJECT "metric expression"
#define MAX_DEPTH 128
/* Longest path from the root to a leaf: left-associative chains (a+b+c...)
 * grow the tree without nesting, and evaluation recurses along paths. */
#define MAX_HEIGHT 1024

typedef enum op {
	OP_NUM, OP_REF, OP_NEG, OP_NOT,
	OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD,
	OP_LT, OP_GT, OP_LE, OP_GE, OP_EQ, OP_NE, OP_AND, OP_OR,
	OP_IF,                     /* a if b else c */
	OP_MIN, OP_MAX, OP_DRATIO,
	OP_HAS,                    /* has_event(a): 1 when a is not NaN, else 0 */
} op;

typedef struct node {
	op op;
	int a, b, c;               /* operand nodes, -1 when unused */
	int ref;                   /* OP_REF: index into refs */
	double num;                /* OP_NUM */
	int height;                /* 1 for leaves */
} node;

struct pk_expr {
	char *text;
	node *n;
	size_t nr, cap;
	int root;
	char **refs;
	long *ref_pos;
	size_t nr_refs, cap_refs, cap_pos;
};

/* Parser state: the cursor and the first error. */
typedef struct parser {
	pk_expr *e;
	const char *s;
	size_t i;
	int depth;
	pk_error *err;
	int rc;
} parser;

static int fail(parser *p, size_t pos, const char *msg)
{
	if (!p->rc)
		p->rc = pk_err_at(p->err, -EINVAL, SUBJECT, p->s, (long)pos, "%s", msg);
	return -1;
}

static int add_node(parser *p, op o, int a, int b, int c)
{
	pk_expr *e = p->e;
	if (pki_grow(&e->n, &e->cap, e->nr + 1, sizeof(*e->n)) < 0) {
		if (!p->rc)
			p->rc = pk_err(p->err, -ENOMEM, "out of memory");
		return -1;
	}
	int h = 0;
	for (int k = 0, kids[3] = {a, b, c}; k < 3; k++)
		if (kids[k] >= 0 && e->n[kids[k]].height > h)
			h = e->n[kids[k]].height;
	if (h + 1 > MAX_HEIGHT)
		return fail(p, p->i, "expression too long (more than 1024 operations in a chain)");
	e->n[e->nr] = (node){.op = o, .a = a, .b = b, .c = c, .ref = -1, .height = h + 1};
	return (int)e->nr++;
}

static void skip_space(parser *p)
{
	while (isspace((unsigned char)p->s[p->i]))
		p->i++;
}

/* Is the text at the cursor the operator tok (and not a longer one)? */
static bool take(parser *p, const char *tok)
{
	skip_space(p);
	size_t n = strlen(tok);
	if (strncmp(p->s + p->i, tok, n) != 0)
		return false;
	/* '<' must not take the first half of "<=", '&' of "&&" */
	char next = p->s[p->i + n];
	if (n == 1 && (next == '=' || (next == tok[0] && (next == '&' || next == '|'))))
		return false;
	if (n == 1 && (tok[0] == '!' || tok[0] == '=') && next == '=')
		return false;
	p->i += n;
	return true;
}

static bool name_start(char c)
{
	return isalpha((unsigned char)c) || c == '_' || c == '#' || c == '\\' || c == '@';
}

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.' || c == ':' || c == '\\' || c == '@';
}

/* Reads a name at the cursor, unescaped, into a new string. */
static char *read_name(parser *p)
{
	pk_strbuf sb = {0};
	size_t start = p->i;
	while (name_char(p->s[p->i]) || (p->i == start && p->s[p->i] == '#')) {
		char c = p->s[p->i];
		if (c == '\\') {
			if (!p->s[p->i + 1]) {
				fail(p, p->i, "'\\' at the end: nothing to escape");
				pki_sb_free(&sb);
				return NULL;
			}
			pki_sb_addn(&sb, p->s + p->i + 1, 1);
			p->i += 2;
			continue;
		}
		if (c == '@') {
			size_t open = p->i++;
			pki_sb_addn(&sb, "/", 1); /* pmu@ev@ reads as pmu/ev/ */
			while (p->s[p->i] && p->s[p->i] != '@') {
				if (p->s[p->i] == '\\' && p->s[p->i + 1])
					p->i++;
				pki_sb_addn(&sb, p->s + p->i++, 1);
			}
			if (!p->s[p->i]) {
				fail(p, open, "'@' without its closing '@'");
				pki_sb_free(&sb);
				return NULL;
			}
			pki_sb_addn(&sb, "/", 1);
			p->i++;
			continue;
		}
		pki_sb_addn(&sb, &c, 1);
		p->i++;
	}
	char *name = pki_sb_steal(&sb);
	if (!name && !p->rc)
		p->rc = pk_err(p->err, -ENOMEM, "out of memory");
	return name;
}

static int intern_ref(parser *p, char *name, size_t pos)
{
	pk_expr *e = p->e;
	for (size_t i = 0; i < e->nr_refs; i++)
		if (!strcmp(e->refs[i], name)) {
			free(name);
			return (int)i;
		}
	if (pki_grow(&e->refs, &e->cap_refs, e->nr_refs + 1, sizeof(*e->refs)) < 0 ||
	    pki_grow(&e->ref_pos, &e->cap_pos, e->nr_refs + 1, sizeof(*e->ref_pos)) < 0) {
		free(name);
		if (!p->rc)
			p->rc = pk_err(p->err, -ENOMEM, "out of memory");
		return -1;
	}
	e->refs[e->nr_refs] = name;
	e->ref_pos[e->nr_refs] = (long)pos;
	return (int)e->nr_refs++;
}

static int parse_expr(parser *p);

static int parse_number(parser *p)
{
	const char *start = p->s + p->i;
	char *end;
	double v;
	if (start[0] == '0' && (start[1] == 'x' || start[1] == 'X')) {
		uint64_t u;
		const char *e;
		if (pki_parse_u64(start, &u, &e) == -ERANGE)
			return fail(p, p->i, "number out of range");
		v = (double)u;
		end = (char *)e;
	} else {
		/* digits[.digits][e[+-]digits]: no inf, nan or hex floats */
		size_t n = strspn(start, "0123456789");
		if (start[n] == '.')
			n += 1 + strspn(start + n + 1, "0123456789");
		if ((start[n] == 'e' || start[n] == 'E') &&
		    (isdigit((unsigned char)start[n + 1]) ||
		     ((start[n + 1] == '+' || start[n + 1] == '-') && isdigit((unsigned char)start[n + 2]))))
			n += 2 + strspn(start + n + 2, "0123456789");
		char buf[64];
		if (n >= sizeof(buf))
			return fail(p, p->i, "number too long");
		memcpy(buf, start, n);
		buf[n] = '\0';
		v = strtod(buf, NULL);
		end = (char *)start + n;
	}
	if (end == start || name_char(*end))
		return fail(p, p->i, "malformed number");
	int n = add_node(p, OP_NUM, -1, -1, -1);
	if (n >= 0)
		p->e->n[n].num = v;
	p->i = (size_t)(end - p->s);
	return n;
}

/* min(a, b, ...), max(a, b, ...), d_ratio(a, b), has_event(a): the cursor
 * is on '('. */
static int parse_call(parser *p, op o, size_t at)
{
	p->i++;
	int acc = parse_expr(p);
	int nargs = 1;
	while (acc >= 0 && take(p, ",")) {
		int b = parse_expr(p);
		if (b < 0)
			return -1;
		acc = add_node(p, o, acc, b, -1);
		nargs++;
	}
	if (acc < 0)
		return -1;
	if (!take(p, ")"))
		return fail(p, p->i, "expected ',' or ')' in the function's arguments");
	if (o == OP_HAS)
		return nargs == 1 ? add_node(p, OP_HAS, acc, -1, -1)
				  : fail(p, at, "has_event takes one argument");
	if (nargs < 2 || (o == OP_DRATIO && nargs != 2))
		return fail(p, at, o == OP_DRATIO ? "d_ratio takes two arguments"
						  : "min and max take two or more arguments");
	return acc;
}

static int ref_node(parser *p, char *name, size_t at)
{
	int ref = intern_ref(p, name, at);
	int n = ref < 0 ? -1 : add_node(p, OP_REF, -1, -1, -1);
	if (n >= 0)
		p->e->n[n].ref = ref;
	return n;
}

/* source_count(EVENT): the cursor is on '('. One reference, named
 * "#source_count(EVENT)" (a literal's spelling: callers that collect a
 * formula's events skip it; the engine answers it from EVENT's counts). */
static int parse_source_count(parser *p, size_t at)
{
	p->i++;
	skip_space(p);
	if (!name_start(p->s[p->i]) || p->s[p->i] == '#')
		return fail(p, p->i, "source_count takes an event's name");
	char *ev = read_name(p);
	if (!ev)
		return -1;
	skip_space(p);
	if (!take(p, ")")) {
		free(ev);
		return fail(p, p->i, "expected ')' after source_count's event");
	}
	pk_strbuf sb = {0};
	pki_sb_addf(&sb, "#source_count(%s)", ev);
	free(ev);
	char *name = pki_sb_steal(&sb);
	if (!name)
		return fail(p, at, "out of memory");
	return ref_node(p, name, at);
}

static int parse_primary(parser *p)
{
	skip_space(p);
	size_t at = p->i;
	char c = p->s[at];
	if (isdigit((unsigned char)c) || (c == '.' && isdigit((unsigned char)p->s[at + 1])))
		return parse_number(p);
	if (c == '(') {
		p->i++;
		int n = parse_expr(p);
		if (n >= 0 && !take(p, ")"))
			return fail(p, p->i, "expected ')'");
		return n;
	}
	if (!name_start(c))
		return fail(p, at, c ? "expected a number, a name or '('" : "unexpected end of expression");
	char *name = read_name(p);
	if (!name)
		return -1;
	if (!strcmp(name, "if") || !strcmp(name, "else")) {
		free(name);
		return fail(p, at, "expected a value before 'if'/'else'");
	}
	skip_space(p);
	static const struct { const char *name; op op; } funcs[] = {
		{"min", OP_MIN}, {"max", OP_MAX}, {"d_ratio", OP_DRATIO}, {"has_event", OP_HAS}};
	for (size_t f = 0; f < PK_ARRAY_SIZE(funcs); f++)
		if (p->s[p->i] == '(' && !strcmp(name, funcs[f].name)) {
			free(name);
			return parse_call(p, funcs[f].op, at);
		}
	if (p->s[p->i] == '(' && !strcmp(name, "source_count")) {
		free(name);
		return parse_source_count(p, at);
	}
	if (!strcmp(name, "smt_on")) {
		free(name);
		name = strdup("#smt_on");
		if (!name)
			return fail(p, at, "out of memory");
	}
	if (name[0] == '#' && !name[1]) {
		free(name);
		return fail(p, at, "'#' must be followed by a literal's name");
	}
	return ref_node(p, name, at);
}

static int parse_unary(parser *p)
{
	if (++p->depth > MAX_DEPTH)
		return fail(p, p->i, "expression nested too deeply");
	int n;
	if (take(p, "-")) {
		int a = parse_unary(p);
		n = a < 0 ? -1 : add_node(p, OP_NEG, a, -1, -1);
	} else if (take(p, "+")) {
		n = parse_unary(p);
	} else if (take(p, "!")) {
		int a = parse_unary(p);
		n = a < 0 ? -1 : add_node(p, OP_NOT, a, -1, -1);
	} else {
		n = parse_primary(p);
	}
	p->depth--;
	return n;
}

/* One level of left-associative binary operators. */
typedef struct binop {
	const char *tok;
	op op;
} binop;

static int parse_level(parser *p, int level);

static const struct {
	const binop *ops;
	size_t nr;
	bool chain;                /* a < b < c is refused: comparisons do not chain */
} levels[] = {
	{(const binop[]){{"||", OP_OR}, {"|", OP_OR}}, 2, true},
	{(const binop[]){{"&&", OP_AND}, {"&", OP_AND}}, 2, true},
	{(const binop[]){{"<=", OP_LE}, {">=", OP_GE}, {"==", OP_EQ}, {"!=", OP_NE},
			 {"<", OP_LT}, {">", OP_GT}}, 6, false},
	{(const binop[]){{"+", OP_ADD}, {"-", OP_SUB}}, 2, true},
	{(const binop[]){{"*", OP_MUL}, {"/", OP_DIV}, {"%", OP_MOD}}, 3, true},
};

static int parse_operand(parser *p, int level)
{
	return level + 1 < (int)PK_ARRAY_SIZE(levels) ? parse_level(p, level + 1) : parse_unary(p);
}

static int parse_level(parser *p, int level)
{
	int a = parse_operand(p, level);
	for (bool more = a >= 0; more;) {
		more = false;
		for (size_t k = 0; k < levels[level].nr; k++) {
			if (!take(p, levels[level].ops[k].tok))
				continue;
			int b = parse_operand(p, level);
			a = b < 0 ? -1 : add_node(p, levels[level].ops[k].op, a, b, -1);
			more = a >= 0 && levels[level].chain;
			break;
		}
	}
	return a;
}

/* Is the next word the keyword kw (not a prefix of a longer name)? */
static bool take_keyword(parser *p, const char *kw)
{
	skip_space(p);
	size_t n = strlen(kw);
	if (strncmp(p->s + p->i, kw, n) != 0 || name_char(p->s[p->i + n]))
		return false;
	p->i += n;
	return true;
}

static int parse_expr(parser *p)
{
	if (++p->depth > MAX_DEPTH)
		return fail(p, p->i, "expression nested too deeply");
	int a = parse_level(p, 0);
	if (a >= 0 && take_keyword(p, "if")) {
		int cond = parse_level(p, 0);
		if (cond >= 0 && !take_keyword(p, "else"))
			a = fail(p, p->i, "expected 'else' after the condition of 'if'");
		int other = cond < 0 || a < 0 ? -1 : parse_expr(p);
		a = other < 0 ? -1 : add_node(p, OP_IF, a, cond, other);
	}
	p->depth--;
	return a;
}

pk_expr *pk_expr_parse(const char *text, pk_error *err)
{
	if (!text) {
		pk_err(err, -EINVAL, "no expression");
		return NULL;
	}
	pk_expr *e = calloc(1, sizeof(*e));
	if (e)
		e->text = strdup(text);
	if (!e || !e->text) {
		pk_expr_free(e);
		pk_err(err, -ENOMEM, "out of memory");
		return NULL;
	}
	parser p = {.e = e, .s = e->text, .err = err};
	e->root = parse_expr(&p);
	skip_space(&p);
	if (e->root >= 0 && p.s[p.i])
		fail(&p, p.i, "unexpected text after the expression");
	if (p.rc || e->root < 0) {
		if (!p.rc)
			fail(&p, p.i, "malformed expression");
		pk_expr_free(e);
		return NULL;
	}
	return e;
}

void pk_expr_free(pk_expr *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->nr_refs; i++)
		free(e->refs[i]);
	free(e->refs);
	free(e->ref_pos);
	free(e->n);
	free(e->text);
	free(e);
}

const char *pk_expr_text(const pk_expr *e)
{
	return e->text;
}

size_t pk_expr_nr_refs(const pk_expr *e)
{
	return e->nr_refs;
}

const char *pk_expr_ref(const pk_expr *e, size_t i)
{
	return i < e->nr_refs ? e->refs[i] : NULL;
}

long pk_expr_ref_pos(const pk_expr *e, size_t i)
{
	return i < e->nr_refs ? e->ref_pos[i] : -1;
}

/* ---- Evaluation ------------------------------------------------------------ */

static double truth(double v)
{
	return isnan(v) ? NAN : v != 0 ? 1.0 : 0.0;
}

static double binary(op o, double a, double b)
{
	switch (o) {
	case OP_ADD: return a + b;
	case OP_SUB: return a - b;
	case OP_MUL: return a * b;
	case OP_DIV: return b == 0 ? NAN : a / b;
	case OP_MOD: return b == 0 ? NAN : fmod(a, b);
	case OP_LT: return isnan(a + b) ? NAN : a < b;
	case OP_GT: return isnan(a + b) ? NAN : a > b;
	case OP_LE: return isnan(a + b) ? NAN : a <= b;
	case OP_GE: return isnan(a + b) ? NAN : a >= b;
	case OP_EQ: return isnan(a + b) ? NAN : a == b;
	case OP_NE: return isnan(a + b) ? NAN : a != b;
	case OP_AND: return isnan(a + b) ? NAN : (a != 0 && b != 0);
	case OP_OR: return isnan(a + b) ? NAN : (a != 0 || b != 0);
	case OP_MIN: return isnan(a + b) ? NAN : a < b ? a : b;
	case OP_MAX: return isnan(a + b) ? NAN : a > b ? a : b;
	case OP_DRATIO: return b == 0 ? 0 : a / b;
	default: return NAN;
	}
}

/* Nodes only point to earlier nodes and the parser bounds nesting, so the
 * recursion is as deep as the text was. */
static double eval_node(const pk_expr *e, int i, const double *vals)
{
	const node *n = &e->n[i];
	switch (n->op) {
	case OP_NUM: return n->num;
	case OP_REF: return vals[n->ref];
	case OP_NEG: return -eval_node(e, n->a, vals);
	case OP_HAS: return isnan(eval_node(e, n->a, vals)) ? 0.0 : 1.0;
	case OP_NOT: {
		double v = truth(eval_node(e, n->a, vals));
		return isnan(v) ? v : 1.0 - v;
	}
	case OP_IF: {
		double c = truth(eval_node(e, n->b, vals));
		if (isnan(c))
			return c;
		return eval_node(e, c != 0 ? n->a : n->c, vals);
	}
	default:
		return binary(n->op, eval_node(e, n->a, vals), eval_node(e, n->b, vals));
	}
}

double pk_expr_eval(const pk_expr *e, const double *values)
{
	return eval_node(e, e->root, values);
}
