/* Flame graph data (pmukit/flame.h): the distinct stacks of a session's
 * samples, then perf 6.1's flamegraph.py JSON tree and stackcollapse.py
 * folded lines made from them.
 *
 * Invariants: a stack is one string key in a pki_strmap, "comm \x1f pid
 * \x1f tid" then per frame, from the leaf, "\x1e" + its kind ('k' dso
 * [kernel.kallsyms], 'v' a path ending in /vmlinux, '-' any other or none)
 * + its name; keys[] lists the keys in first-seen order (the map owns
 * them), counts[] their samples. Building the tree from the distinct stacks
 * in that order gives python's children order: a child is made when the
 * first stack through it comes. */
#include <pmukit/flame.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmukit/script.h>

#include "core/strmap.h"
#include "core/util.h"

struct pk_flame {
	int max_stack;
	pki_strmap stacks;           /* key -> (void *)(index + 1) */
	const char **keys;
	uint64_t *counts;
	size_t nr, cap;
	uint64_t nr_samples;
	pk_strbuf key;               /* the key being built */
	pk_chain_gatherer gather;
	pk_chain_plan chain;
};

pk_flame *pk_flame_new(int max_stack)
{
	pk_flame *f = calloc(1, sizeof(*f));
	if (f)
		f->max_stack = max_stack < 0 || max_stack > PK_MAX_STACK ? PK_MAX_STACK : max_stack;
	return f;
}

void pk_flame_free(pk_flame *f)
{
	if (!f)
		return;
	pki_strmap_free(&f->stacks, NULL);
	free(f->keys);
	free(f->counts);
	pki_sb_free(&f->key);
	free(f);
}

uint64_t pk_flame_nr_samples(const pk_flame *f)
{
	return f->nr_samples;
}

/* A frame into the key: kind, then the name up to a separator byte. */
static void key_frame(pk_strbuf *sb, const char *name, size_t len, const char *dso)
{
	char kind = '-';
	size_t dl = dso ? strlen(dso) : 0;
	if (dso && !strcmp(dso, "[kernel.kallsyms]"))
		kind = 'k';
	else if (dl >= 8 && !strcmp(dso + dl - 8, "/vmlinux"))
		kind = 'v';
	char head[2] = {'\x1e', kind};
	pki_sb_addn(sb, head, 2);
	size_t n = strcspn(name, "\x1e\x1f");
	pki_sb_addn(sb, name, n < len ? n : len);
}

/* The frames of smp's chain, as perf script resolves them, into f->key. */
static void key_chain(pk_flame *f, pk_session *s, const pk_pd_event *ev, const pk_pd_sample *smp)
{
	pk_machine *m = pk_session_machine(s);
	unsigned cpumode = ev->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	pk_script_chain_gather(&f->gather, NULL, NULL, m, pk_session_chain_inlines(s, smp), smp,
			       cpumode, f->max_stack, &f->chain);
	for (int i = 0; i < f->chain.n; i++) {
		const pk_chain_ent *ce = &f->chain.e[i];
		const pk_addr_loc *loc = pk_machine_lookup(m, smp->pid, ce->mode, ce->ip);
		const char *dso = loc->has_map ? loc->dso : NULL;
		if (ce->inl) /* pk_session_chain_inlines' "name (inlined)" */
			key_frame(&f->key, ce->inl, strlen(ce->inl) - strlen(" (inlined)"), dso);
		else if (loc->sym)
			key_frame(&f->key, loc->sym, loc->sym_len, dso);
		else
			key_frame(&f->key, "[unknown]", 9, dso);
	}
}

int pk_flame_sample(pk_flame *f, pk_session *s, const pk_pd_event *ev, const pk_pd_sample *smp)
{
	pk_machine *m = pk_session_machine(s);
	f->key.len = 0;
	const char *comm = pk_machine_comm(m, smp->pid, smp->tid);
	pki_sb_addn(&f->key, comm, strcspn(comm, "\x1e\x1f"));
	pki_sb_addf(&f->key, "\x1f%" PRIu32 "\x1f%" PRIu32, smp->pid, smp->tid);
	if (smp->callchain)
		key_chain(f, s, ev, smp);
	pki_sb_addn(&f->key, "", 1);
	if (f->key.oom)
		return -ENOMEM;
	pki_strmap_slot *sl = pki_strmap_put(&f->stacks, f->key.buf);
	if (!sl)
		return -ENOMEM;
	if (!sl->val) {
		if (pki_grow(&f->keys, &f->cap, f->nr + 1, sizeof(*f->keys)) ||
		    !(f->counts = realloc(f->counts, f->cap * sizeof(*f->counts))))
			return -ENOMEM;
		f->keys[f->nr] = sl->key;
		f->counts[f->nr] = 0;
		sl->val = (void *)(uintptr_t)++f->nr;
	}
	f->counts[(uintptr_t)sl->val - 1]++;
	f->nr_samples++;
	return 0;
}

/* A stack's parts, parsed from its key. */
typedef struct stack_parts {
	const char *comm, *pid, *tid;
	size_t comm_len, pid_len, tid_len;
	int n;                       /* frames, from the leaf */
	const char *name[PK_MAX_STACK];
	size_t len[PK_MAX_STACK];
	char kind[PK_MAX_STACK];
} stack_parts;

static void parse_key(const char *k, stack_parts *p)
{
	p->comm = k;
	p->comm_len = strcspn(k, "\x1f");
	p->pid = p->comm + p->comm_len + 1;
	p->pid_len = strcspn(p->pid, "\x1f");
	p->tid = p->pid + p->pid_len + 1;
	p->tid_len = strcspn(p->tid, "\x1e");
	const char *c = p->tid + p->tid_len;
	p->n = 0;
	while (*c == '\x1e' && p->n < PK_MAX_STACK) {
		p->kind[p->n] = c[1];
		p->name[p->n] = c + 2;
		p->len[p->n] = strcspn(c + 2, "\x1e");
		c += 2 + p->len[p->n++];
	}
}

/* ---- The JSON tree -------------------------------------------------------- */

typedef struct fnode {
	const char *name;
	size_t len;
	const char *libtype;
	uint64_t value;
	size_t first, last, next;    /* children and sibling: indices, 0 none */
	char *own;                   /* a name made here ("comm (pid)"), freed */
} fnode;

typedef struct ftree {
	fnode *n;
	size_t nr, cap;
} ftree;

/* The child of parent named (name, len), made when absent: its index, 0
 * when out of memory. */
static size_t child_of(ftree *t, size_t parent, const char *name, size_t len,
		       const char *libtype)
{
	for (size_t c = t->n[parent].first; c; c = t->n[c].next)
		if (t->n[c].len == len && !memcmp(t->n[c].name, name, len))
			return c;
	if (pki_grow(&t->n, &t->cap, t->nr + 1, sizeof(*t->n)))
		return 0;
	size_t c = t->nr++;
	t->n[c] = (fnode){.name = name, .len = len, .libtype = libtype};
	if (t->n[parent].last)
		t->n[t->n[parent].last].next = c;
	else
		t->n[parent].first = c;
	t->n[parent].last = c;
	return c;
}

/* Stack i put into the tree. */
static int tree_add(ftree *t, const char *key, uint64_t count, stack_parts *p)
{
	parse_key(key, p);
	bool idle = p->pid_len == 1 && p->pid[0] == '0';
	char *top = NULL;
	if (!idle && asprintf(&top, "%.*s (%.*s)", (int)p->comm_len, p->comm, (int)p->pid_len,
			      p->pid) < 0)
		return -ENOMEM;
	size_t node = idle ? child_of(t, 0, p->comm, p->comm_len, "kernel")
			   : child_of(t, 0, top, strlen(top), "");
	if (!node || (!idle && t->n[node].own)) {
		free(top); /* a level-1 node made before keeps its own copy */
		if (!node)
			return -ENOMEM;
	} else if (!idle) {
		t->n[node].own = top;
	}
	for (int i = p->n - 1; i >= 0; i--) {
		node = child_of(t, node, p->name[i], p->len[i], p->kind[i] == '-' ? "" : "kernel");
		if (!node)
			return -ENOMEM;
	}
	t->n[node].value += count;
	return 0;
}

/* s as a python json.dumps string (ensure_ascii). */
static void json_str(pk_strbuf *sb, const char *s, size_t len)
{
	pki_sb_addn(sb, "\"", 1);
	for (size_t i = 0; i < len;) {
		unsigned char c = (unsigned char)s[i];
		uint32_t cp = c;
		size_t n = 1;
		if (c >= 0x80) {
			n = c >= 0xf8 ? 0 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 0;
			bool ok = n && i + n <= len;
			for (size_t j = 1; ok && j < n; j++)
				ok = ((unsigned char)s[i + j] & 0xc0) == 0x80;
			if (ok) {
				cp = c & (0x7f >> n);
				for (size_t j = 1; j < n; j++)
					cp = cp << 6 | ((unsigned char)s[i + j] & 0x3f);
			} else {
				n = 1; /* not UTF-8: the byte as a code point */
			}
		}
		i += n;
		const char *esc = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\n' ? "\\n"
				: c == '\r' ? "\\r" : c == '\t' ? "\\t" : c == '\b' ? "\\b"
				: c == '\f' ? "\\f" : NULL;
		if (esc)
			pki_sb_addn(sb, esc, 2);
		else if (cp >= 0x10000)
			pki_sb_addf(sb, "\\u%04x\\u%04x", 0xd800 + ((cp - 0x10000) >> 10),
				    0xdc00 + ((cp - 0x10000) & 0x3ff));
		else if (cp < 0x20 || cp >= 0x80)
			pki_sb_addf(sb, "\\u%04x", cp);
		else
			pki_sb_addn(sb, s + i - 1, 1);
	}
	pki_sb_addn(sb, "\"", 1);
}

static void json_node(pk_strbuf *sb, const ftree *t, size_t i)
{
	const fnode *n = &t->n[i];
	pki_sb_addn(sb, "{\"n\": ", 6);
	json_str(sb, n->name, n->len);
	pki_sb_addf(sb, ", \"l\": \"%s\", \"v\": %" PRIu64 ", \"c\": [", n->libtype, n->value);
	for (size_t c = n->first; c; c = t->n[c].next) {
		json_node(sb, t, c);
		if (t->n[c].next)
			pki_sb_addn(sb, ", ", 2);
	}
	pki_sb_addn(sb, "]}", 2);
}

int pk_flame_json(const pk_flame *f, char **out, size_t *len)
{
	ftree t = {0};
	stack_parts *p = malloc(sizeof(*p));
	int rc = p && !pki_grow(&t.n, &t.cap, 1, sizeof(*t.n)) ? 0 : -ENOMEM;
	if (!rc) {
		t.n[t.nr++] = (fnode){.name = "all", .len = 3, .libtype = "root"};
		for (size_t i = 0; i < f->nr && !rc; i++)
			rc = tree_add(&t, f->keys[i], f->counts[i], p);
	}
	pk_strbuf sb = {0};
	if (!rc) {
		json_node(&sb, &t, 0);
		*len = sb.len;
		if (!(*out = pki_sb_steal(&sb)))
			rc = -ENOMEM;
	}
	for (size_t i = 0; i < t.nr; i++)
		free(t.n[i].own);
	free(t.n);
	free(p);
	pki_sb_free(&sb);
	return rc;
}

/* ---- The folded lines ----------------------------------------------------- */

/* A frame as stackcollapse.py's tidy_function_name writes it. */
static void fold_frame(pk_strbuf *sb, const char *name, size_t len, char kind, unsigned flags)
{
	size_t start = sb->len;
	for (size_t i = 0; i < len; i++) {
		char c = name[i] == ';' ? ':' : name[i];
		if (!(flags & PK_FOLD_TIDY_JAVA) || (c != '<' && c != '>'))
			pki_sb_addn(sb, &c, 1);
	}
	if ((flags & PK_FOLD_TIDY_JAVA) && !sb->oom) {
		char *s = sb->buf + start;
		size_t n = sb->len - start;
		if (n && s[0] == 'L') {
			memmove(s, s + 1, --n);
			sb->len--;
		}
		char *paren = memchr(s, '(', n);
		if (paren)
			sb->len = (size_t)(paren - sb->buf);
	}
	if ((flags & PK_FOLD_KERNEL) && kind == 'k')
		pki_sb_addn(sb, "_[k]", 4);
}

/* Stack key's folded text (without its count) into sb, ended by a NUL. */
static void fold_stack(pk_strbuf *sb, const char *key, unsigned flags, stack_parts *p)
{
	parse_key(key, p);
	bool sep = false;
	if (!(flags & PK_FOLD_NO_COMM)) {
		for (size_t i = 0; i < p->comm_len; i++)
			pki_sb_addn(sb, p->comm[i] == ' ' ? "_" : &p->comm[i], 1);
		if (flags & PK_FOLD_PID)
			pki_sb_addf(sb, "-%.*s", (int)p->pid_len, p->pid);
		if (flags & PK_FOLD_TID)
			pki_sb_addf(sb, "%s%.*s", flags & PK_FOLD_PID ? "/" : "-", (int)p->tid_len,
				    p->tid);
		sep = true;
	}
	for (int i = p->n - 1; i >= 0; i--, sep = true) {
		if (sep)
			pki_sb_addn(sb, ";", 1);
		fold_frame(sb, p->name[i], p->len[i], p->kind[i], flags);
	}
	pki_sb_addn(sb, "", 1);
}

typedef struct folded {
	size_t off;                  /* its text in the buffer, */
	const char *s;               /* there once the buffer is whole */
	uint64_t count;
} folded;

static int fold_cmp(const void *a, const void *b)
{
	return strcmp(((const folded *)a)->s, ((const folded *)b)->s);
}

int pk_flame_folded(const pk_flame *f, unsigned flags, char **out, size_t *len)
{
	pk_strbuf text = {0}, sb = {0};
	folded *v = f->nr ? malloc(f->nr * sizeof(*v)) : NULL;
	stack_parts *p = malloc(sizeof(*p));
	int rc = (v || !f->nr) && p ? 0 : -ENOMEM;
	for (size_t i = 0; i < f->nr && !rc; i++) {
		v[i] = (folded){.off = text.len, .count = f->counts[i]};
		fold_stack(&text, f->keys[i], flags, p);
		rc = text.oom ? -ENOMEM : 0;
	}
	if (!rc && f->nr) {
		for (size_t i = 0; i < f->nr; i++)
			v[i].s = text.buf + v[i].off;
		qsort(v, f->nr, sizeof(*v), fold_cmp);
	}
	for (size_t i = 0; i < f->nr && !rc; i++) {
		uint64_t count = v[i].count;
		while (i + 1 < f->nr && !strcmp(v[i].s, v[i + 1].s))
			count += v[++i].count;
		pki_sb_addf(&sb, "%s %" PRIu64 "\n", v[i].s, count);
	}
	if (!rc) {
		*len = sb.len;
		if (!(*out = pki_sb_steal(&sb)))
			rc = -ENOMEM;
	}
	free(v);
	free(p);
	pki_sb_free(&text);
	pki_sb_free(&sb);
	return rc;
}
