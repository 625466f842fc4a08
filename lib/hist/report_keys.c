/* libpmukit: report's sort keys as data (perf report -s), one row each,
 * in perf 6.1's order (a prefix of a name finds the first key it begins):
 * the name, the column title and width rule, how the value is made from a
 * sample and an address, and how equal rows are ordered (perf's rule per
 * key: names by strcmp, numbers ascending, symbols named before unknown).
 * A key's text is what identifies an entry, with its number where two
 * texts may be equal for different things (two symbols with one name).
 * -F's value columns are a table here too (report_fields.c parses them). */
#include "report_keys.h"
#include "session/pd_session.h"

#include <pmukit/datasrc.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>



static void k_comm(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num)
{
	*num = 0; /* by name: threads of one name share a row */
	pki_hist_put(b, n, pk_machine_comm(c->m, c->smp->pid, c->smp->tid));
}

static void k_pid(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num)
{
	*num = (uint64_t)(int64_t)(int32_t)c->smp->tid; /* perf's pid key is the thread */
	snprintf(b, n, "%7d:%s", (int)c->smp->tid, pk_machine_comm(c->m, c->smp->pid, c->smp->tid));
}

/* A dso's short name; a JIT's map file, there or not: perf names the
 * code "[JIT] tid N". */
static void dso_text(const pki_hist_loc *l, char *b, size_t n)
{
	const char *base = pki_hist_dso_short(l);
	int tid;
	char tail;
	if (!strncmp(base, "perf-", 5) && sscanf(base, "perf-%d.ma%c", &tid, &tail) == 2 &&
	    tail == 'p') {
		snprintf(b, n, "[JIT] tid %d", tid);
		return;
	}
	pki_hist_put(b, n, base);
}

static void k_dso(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num)
{
	*num = 0;
	if (c->verbose && c->loc->has_map) /* perf -v: the long name */
		pki_hist_put(b, n, c->loc->dso_long ? c->loc->dso_long : c->loc->dso);
	else
		dso_text(c->loc, b, n);
}

void pki_hist_sym_text(const pki_hist_loc *l, char *b, size_t n)
{
	if (l->sym)
		pki_hist_put(b, n, l->sym);
	else /* '#' adds no 0x to 0, as in perf */
		snprintf(b, n, "%#.16" PRIx64, l->has_map ? l->dso_addr : l->ip);
}

static void k_sym(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num)
{
	const pki_hist_loc *l = c->loc;
	*num = l->sym ? l->sym_start : l->has_map ? l->dso_addr : l->ip;
	pki_hist_sym_text(c->loc, b, n);
}

static void k_cpu(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num)
{
	int cpu = c->smp->type & PERF_SAMPLE_CPU ? (int)c->smp->cpu : -1;
	*num = (uint64_t)(int64_t)cpu;
	snprintf(b, n, "%3.3d", cpu); /* "-001" without CPUs, as perf */
}

static void k_socket(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num)
{
	int s = pki_hist_socket_of(c);
	*num = (uint64_t)(int64_t)s;
	snprintf(b, n, "%6.3d", s);
}

static void k_period(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num)
{
	*num = c->smp->period;
	b[0] = n ? '\0' : b[0]; /* the entry's period, written when printed */
}

static void k_sample(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num)
{
	(void)c;
	*num = 0;
	b[0] = n ? '\0' : b[0]; /* the entry's sample count, written when printed */
}

static void k_time(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num)
{
	uint64_t q = c->time_quantum ? c->time_quantum : 100000000;
	uint64_t t = c->smp->time / q * q;
	*num = t;
	if (c->ns)
		snprintf(b, n, "%" PRIu64 ".%09" PRIu64, t / 1000000000, t % 1000000000);
	else
		snprintf(b, n, "%" PRIu64 ".%06" PRIu64, t / 1000000000, t % 1000000000 / 1000);
}

static void k_weight(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num)
{
	*num = c->smp->weight;
	snprintf(b, n, "%" PRIu64, c->smp->weight);
}

/* The cgroup's path from its CGROUP record: "unknown" without one,
 * "N/A" for id 0 (perf's words). */
static void k_cgroup(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num)
{
	const char *path = c->smp->cgroup ? pk_machine_cgroup(c->m, c->smp->cgroup) : "N/A";
	*num = c->smp->cgroup;
	pki_hist_put(b, n, path ? path : "unknown");
}

static void k_parent(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num)
{
	const char *p = c->hist ? pki_hist_parent_of(c->hist, c->chain, c->nr_chain) : NULL;
	*num = !p; /* [other]: perf's null parent, after the named ones */
	pki_hist_put(b, n, p ? p : "[other]");
}

static void k_sym_size(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num)
{
	*num = c->loc->sym ? c->loc->sym_size : 0;
	if (c->loc->sym)
		snprintf(b, n, "%11" PRIu64, *num);
	else
		snprintf(b, n, "%11s", "unknown");
}

static void k_dso_size(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num)
{
	*num = c->loc->map_size;
	if (c->loc->has_map) /* perf's "%*d": an int, the title's width */
		snprintf(b, n, "%8d", (int)(uint32_t)*num);
	else
		snprintf(b, n, "%8s", "unknown");
}

/* A tracepoint's payload as its print format (or raw fields) shows it;
 * "N/A" for samples without one. */
static void k_trace(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num)
{
	*num = 0;
	size_t l = 0;
	const char *text = c->s && pki_trace_usable(&c->s->trace, c->s, c->evsel)
				   ? pki_trace_text(&c->s->trace, c->evsel, c->smp,
						   c->raw_trace ? PK_TRACE_RAW : PK_TRACE_PRETTY, &l)
				   : NULL;
	if (!text)
		text = "N/A", l = 3;
	l = l < n - 1 ? l : n - 1;
	memcpy(b, text, l);
	b[l] = '\0';
}

/* The memory keys (perf's --mem-mode): parts of the sample's data source,
 * its data address resolved as a symbol or object, the instruction latency. */
static void data_src_key(const pki_hist_ctx *c, pk_data_src_part part, char *b, size_t n,
			 uint64_t *num)
{
	/* perf orders (and merges) entries by the part's field alone:
	 * {shift, bits} of mem_lvl, mem_snoop, mem_dtlb, mem_lock, mem_blk */
	static const unsigned char field[][2] = {
		[PK_DATA_SRC_LVL] = {5, 14}, [PK_DATA_SRC_SNOOP] = {19, 5}, [PK_DATA_SRC_TLB] = {26, 7},
		[PK_DATA_SRC_LOCK] = {24, 2}, [PK_DATA_SRC_BLK] = {40, 3}};
	/* a sample without one: perf's "none" (every part N/A) */
	uint64_t src = c->smp->type & PERF_SAMPLE_DATA_SRC
			       ? c->smp->data_src
			       : 1 | 1 << 5 | 1 << 19 | 1 << 24 | 1 << 26;
	*num = src >> field[part][0] & ((1u << field[part][1]) - 1);
	pk_data_src_part_format(src, part, b, n);
}

static void k_mem(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num)
{
	data_src_key(c, PK_DATA_SRC_LVL, b, n, num);
}

static void k_snoop(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num)
{
	data_src_key(c, PK_DATA_SRC_SNOOP, b, n, num);
}

static void k_tlb(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num)
{
	data_src_key(c, PK_DATA_SRC_TLB, b, n, num);
}

static void k_locked(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num)
{
	data_src_key(c, PK_DATA_SRC_LOCK, b, n, num);
}

static void k_blocked(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num)
{
	data_src_key(c, PK_DATA_SRC_BLK, b, n, num);
}

/* The data address's symbol, or the address itself (perf's "%#.16llx",
 * no 0x for 0), after the entry's "[l] "; entries by the address. */
static void k_symbol_daddr(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num)
{
	pk_addr_loc d;
	unsigned mode = c->level == 'k' ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
	pk_machine_resolve(c->m, c->smp->pid, mode, c->smp->addr, &d);
	*num = c->smp->addr;
	if (d.sym)
		pki_hist_put(b, n, d.sym);
	else
		snprintf(b, n, "%#.16" PRIx64, c->smp->addr);
}

static void k_dso_daddr(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num)
{
	pk_addr_loc d;
	unsigned mode = c->level == 'k' ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
	pk_machine_resolve(c->m, c->smp->pid, mode, c->smp->addr, &d);
	*num = 0;
	pki_hist_put(b, n, d.dso_short);
}

/* srcline and srcfile: the file and line of the entry's address as perf
 * 6.1 shows them: "file:line"; "??:0" where the dso knows no line or no
 * map holds the address; in no ELF file (the kernel) "sym+offset" (in
 * decimal) or "dso[addr]". srcfile: the file, else empty. */
static int srcline_of(const pki_hist_ctx *c, const pki_hist_loc *l, const char **file,
		      unsigned *line)
{
	unsigned mode = l->level == 'k' ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
	return pk_machine_srcline(c->m, c->smp->pid, mode, l->ip, file, line);
}

/* No line for the address: perf's "sym+off" (its address in the map less
 * the symbol's start, both file offsets in an ET_EXEC, whose symbols perf
 * moves there), else "dso[addr]" at the address objdump shows. */
static void srcline_fallback(const pki_hist_ctx *c, const pki_hist_loc *l, char *b, size_t n)
{
	unsigned mode = l->level == 'k' ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
	const pk_addr_loc *a = pk_machine_lookup(c->m, c->smp->pid, mode, l->ip);
	if (a->sym)
		snprintf(b, n, "%s+%" PRIu64, a->sym,
			 a->dso_exec ? a->symoff : a->dso_addr - a->sym_start);
	else
		snprintf(b, n, "%s[%" PRIx64 "]", pki_hist_dso_short(l), a->objdump_addr);
}

static void srcline_at(const pki_hist_ctx *c, const pki_hist_loc *l, char *b, size_t n,
		       uint64_t *num)
{
	const char *file;
	unsigned line;
	int rc = srcline_of(c, l, &file, &line);
	*num = 0;
	if (rc > 0)
		snprintf(b, n, "%s:%u", file, line);
	else if (rc == 0 || !l->has_map)
		pki_hist_put(b, n, "??:0");
	else
		srcline_fallback(c, l, b, n);
}

static void k_srcline(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num)
{
	srcline_at(c, c->loc, b, n, num);
}

static void k_srcfile(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num)
{
	const char *file;
	unsigned line;
	*num = 0;
	pki_hist_put(b, n, srcline_of(c, c->loc, &file, &line) > 0 ? file : "");
}

/* The weight struct's latencies: local, the sample's; global (ins_lat,
 * p_stage_cyc), the entry's samples times the value (perf 6.1's rule). */
static void k_ins_lat(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num)
{
	*num = (uint32_t)c->smp->weight_var2;
	snprintf(b, n, "%u", (unsigned)c->smp->weight_var2);
}

/* perf 6.1 reads the third weight only on Power: 0 here, whatever the
 * sample holds. */
static void k_p_stage_cyc(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num)
{
	(void)c;
	*num = 0;
	pki_hist_put(b, n, "0");
}

/* A page size as perf names it: "4K", "2M" (divided while the quotient
 * by 1024 stays above 1), "N/A" for none. */
static void page_size_text(uint64_t size, char *b, size_t n)
{
	static const char unit[] = "BKMGTPEZY";
	int i = 0;
	uint64_t v = size;
	while (v / 1024 > 1 && i < 8)
		v /= 1024, i++;
	if (size)
		snprintf(b, n, "%" PRIu64 "%c", v, unit[i]);
	else
		pki_hist_put(b, n, "N/A");
}

static void k_code_page_size(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num)
{
	*num = c->smp->code_page_size;
	page_size_text(*num, b, n);
}

static void k_data_page_size(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num)
{
	*num = c->smp->data_page_size;
	page_size_text(*num, b, n);
}

/* The sample's own address, 0x and hex (perf orders them signed). */
static void k_addr(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num)
{
	*num = c->smp->ip;
	snprintf(b, n, "0x%" PRIx64, c->smp->ip);
}

/* The transaction flags by name (perf's words, each with its space),
 * "NEITHER " when neither sync nor async, ":abort code" in hex. */
static void k_transaction(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num)
{
	static const char *const bits[] = {"EL ", "TX ", "SYNC ", "ASYNC ", "RETRY ", "CON ",
					   "CAP-WRITE ", "CAP-READ "};
	uint64_t t = c->smp->transaction;
	size_t l = 0;
	*num = t;
	b[0] = n ? '\0' : b[0];
	for (int i = 0; i < 8 && l < n; i++)
		if (t >> i & 1)
			l += (size_t)snprintf(b + l, n - l, "%s", bits[i]);
	if (t && !(t & 0xc) && l < n) /* neither SYNC nor ASYNC */
		l += (size_t)snprintf(b + l, n - l, "NEITHER ");
	if (t >> 32 && l < n)
		snprintf(b + l, n - l, ":%" PRIx64, t >> 32);
}

/* The thread's cgroup namespace as "dev/0xinode" (its NAMESPACES
 * record's): "0/0x0" without one. */
static void k_cgroup_id(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num)
{
	uint64_t dev, ino;
	pk_machine_cgroup_ns(c->m, c->smp->tid, &dev, &ino);
	*num = dev << 32 ^ ino;
	snprintf(b, n, "%" PRIu64 "/0x%" PRIx64, dev, ino);
}

/* perf report adds it after a -s naming "symbol": no branch cycles to
 * show, but entries apart by their symbol (perf compares it as sym). */
static void k_ipc_null(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num)
{
	k_sym(c, b, n, num);
	pki_hist_put(b, n, "-      -");
}

/* The data address's cache line, "[X] addr" without a map (perf's '#'
 * adds no 0x to 0); its physical address by the sample's level. */
static void k_dcacheline(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num)
{
	pk_addr_loc d;
	unsigned mode = c->level == 'k' ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
	pk_machine_resolve(c->m, c->smp->pid, mode, c->smp->addr, &d);
	/* the line of the address in its map (perf's al_addr) */
	uint64_t line = (d.has_map ? d.dso_addr : c->smp->addr) & ~(uint64_t)63;
	*num = (uint64_t)(c->level != 'k') << 60 | line >> 6; /* perf: by mode, kernel first */
	if (d.sym)
		snprintf(b, n, "[%c] %s", d.kernel || c->level == 'k' ? 'k' : '.', d.sym);
	else
		snprintf(b, n, "[%c] %#.16" PRIx64, d.has_map ? c->level : 'X', line);
}

static void k_phys_daddr(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num)
{
	*num = c->smp->phys_addr; /* after the entry's "[l] ": samples of any level share it */
	snprintf(b, n, "%#.16" PRIx64, *num);
}

/* The sample's instruction as "[l] name" (perf orders by the address). */
static void k_symbol_iaddr(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num)
{
	char t[PK_HIST_NAME_MAX];
	*num = c->smp->ip;
	if (c->loc->sym) /* perf's iaddr: unresolved, the address as sampled */
		pki_hist_sym_text(c->loc, t, sizeof(t));
	else
		snprintf(t, sizeof(t), "%#.16" PRIx64, c->loc->ip);
	snprintf(b, n, "[%c] %s", c->level, t);
}

/* ---- the branch view's keys: a branch entry's two ends and flags ---- */

static const pki_hist_loc *side_of(const pki_hist_ctx *c, bool to)
{
	return to ? c->to : c->from;
}

static void dso_end(const pki_hist_ctx *c, bool to, char *b, size_t n, uint64_t *num)
{
	const pki_hist_loc *l = side_of(c, to);
	*num = 0;
	if (l->has_map && c->verbose) /* perf -v: the long name */
		pki_hist_put(b, n, l->dso_long ? l->dso_long : l->dso);
	else if (l->has_map)
		dso_text(l, b, n);
	else
		pki_hist_put(b, n, "[unknown]");
}

/* "[l] name" by the end's own level ('H' where no map holds it); numbers
 * are the symbol's start or, unresolved, the address. */
static void sym_end(const pki_hist_ctx *c, bool to, char *b, size_t n, uint64_t *num)
{
	const pki_hist_loc *l = side_of(c, to);
	char t[PK_HIST_NAME_MAX];
	int at = 0;
	*num = l->sym ? l->sym_start : l->ip;
	pki_hist_sym_text(l, t, sizeof(t));
	if (c->verbose) /* perf -v: the end's address in its map, where its symbols came from */
		at = snprintf(b, n, "%-#*" PRIx64 " %c ", 18, l->has_map ? l->dso_addr : l->ip,
			      pk_machine_origin(c->m, c->smp->pid, l->level == 'k' ? PERF_RECORD_MISC_KERNEL
										  : PERF_RECORD_MISC_USER,
						l->ip));
	snprintf(b + at, n - (size_t)at, "[%c] %s", l->level, t);
}

/* "name+0xoff" with the name cut to the column (perf 6.1's fixed 22 less
 * the "[l] " the entry's level makes), or the address in its map. */
static void addr_end(const pki_hist_ctx *c, bool to, char *b, size_t n, uint64_t *num)
{
	const pki_hist_loc *l = side_of(c, to);
	*num = l->ip;
	if (l->sym && l->dso_addr != l->sym_start)
		snprintf(b, n, "%.18s+0x%" PRIx64, l->sym, l->dso_addr - l->sym_start);
	else if (l->sym)
		snprintf(b, n, "%.18s", l->sym);
	else
		snprintf(b, n, "0x%016" PRIx64, l->has_map ? l->dso_addr : l->ip);
}

static void k_srcline_from(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num) { srcline_at(c, c->from, b, n, num); }
static void k_srcline_to(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num) { srcline_at(c, c->to, b, n, num); }
static void k_dso_from(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num) { dso_end(c, false, b, n, num); }
static void k_dso_to(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num) { dso_end(c, true, b, n, num); }
static void k_sym_from(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num) { sym_end(c, false, b, n, num); }
static void k_sym_to(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num) { sym_end(c, true, b, n, num); }
static void k_addr_from(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num) { addr_end(c, false, b, n, num); }
static void k_addr_to(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num) { addr_end(c, true, b, n, num); }

/* perf: "N" when predicted, "Y" when mispredicted, else "N/A". */
static void k_mispredict(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num)
{
	uint64_t f = c->br->flags;
	*num = f & 3;
	pki_hist_put(b, n, f & 2 ? "N" : f & 1 ? "Y" : "N/A");
}

static void k_in_tx(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num)
{
	*num = c->br->flags >> 2 & 1;
	pki_hist_put(b, n, *num ? "T" : ".");
}

static void k_abort(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num)
{
	*num = c->br->flags >> 3 & 1;
	pki_hist_put(b, n, *num ? "A" : ".");
}

/* The cycles field as perf 6.1 prints it: a signed short, "-" for none. */
static void k_cycles(const pki_hist_ctx *c, char *b, size_t n, uint64_t *num)
{
	*num = c->br->flags >> 4 & 0xffff;
	if (*num)
		snprintf(b, n, "%d", (int)(int16_t)(uint16_t)*num);
	else
		pki_hist_put(b, n, "-");
}

/* a branch end's symbol is not padded as the last column (perf prints it
 * as the sym key's: "%.*s", or an unresolved address as it is) */
#define BRANCH_KEY(n, t, o, f, s, u, w)                                                           \
	{{.name = n, .title = t, .order = o, .pad_last = !(w) && (u) != PK_HIST_U_SYM,             \
	  .branch = true, .side = s,                                                              \
	  .unres = u, .fixed_w = w, .level = !!(w)},                                              \
	 f}

#define KEY(n, t, o, p, r, f) {{.name = n, .title = t, .order = o, .pad_last = p, .right = r}, f}
/* A key whose entries widen it to w at least (perf's column lengths). */
#define KEY_W(n, t, o, f, w) {{.name = n, .title = t, .order = o, .pad_last = true, .entry_w = w}, f}
#define MEM_KEY(n, t, o, f, w)                                                                    \
	{{.name = n, .title = t, .order = o, .pad_last = true, .mem = true, .entry_w = w}, f}

/* perf 6.1's order, which a prefix finds its key by: the common keys, the
 * values that sort (sample, period), the branch view's, the memory keys. */
const pki_hist_keydef pki_hist_keys[] = {
	KEY("pid", "    Pid:Command", PK_HIST_ORD_NUM, true, false, k_pid),
	KEY("comm", "Command", PK_HIST_ORD_TEXT, true, false, k_comm),
	KEY("dso", "Shared Object", PK_HIST_ORD_TEXT, true, false, k_dso),
	KEY("symbol", "Symbol", PK_HIST_ORD_SYM, false, false, k_sym),
	{{.name = "parent", .title = "Parent symbol", .order = PK_HIST_ORD_TEXT, .pad_last = true,
	  .unres = PK_HIST_U_PARENT},
	 k_parent},
	KEY("cpu", "CPU", PK_HIST_ORD_NUM, true, false, k_cpu),
	KEY("socket", "Socket", PK_HIST_ORD_NUM, true, false, k_socket),
	KEY("srcline", "Source:Line", PK_HIST_ORD_TEXT, false, false, k_srcline),
	KEY("srcfile", "Source File", PK_HIST_ORD_TEXT, false, false, k_srcfile),
	/* perf 6.1: entries by the sample's weight, high first; weight shows
	 * the entry's summed weights, local_weight the sample's */
	KEY("local_weight", "Local Weight", PK_HIST_ORD_DESC_NUM, true, false, k_weight),
	KEY("weight", "Weight", PK_HIST_ORD_WEIGHT, true, false, k_weight),
	KEY_W("transaction", "Transaction", PK_HIST_ORD_DESC_NUM, k_transaction, 27),
	KEY("trace", "Trace output", PK_HIST_ORD_TEXT, false, false, k_trace),
	KEY("symbol_size", "Symbol size", PK_HIST_ORD_NUM, true, false, k_sym_size),
	{{.name = "dso_size", .title = "DSO size", .order = PK_HIST_ORD_NUM, .pad_last = true,
	  .fixed_w = 8},
	 k_dso_size},
	{{.name = "cgroup", .title = "Cgroup", .order = PK_HIST_ORD_NUM, .entry_w = 6}, k_cgroup},
	{{.name = "cgroup_id", .title = "cgroup id (dev/inode)", .order = PK_HIST_ORD_NUM, .entry_w = 20},
	 k_cgroup_id},
	KEY_W("ipc_null", "IPC   [IPC Coverage]", PK_HIST_ORD_NUM, k_ipc_null, 20),
	KEY("time", "Time", PK_HIST_ORD_NUM, false, false, k_time),
	KEY_W("code_page_size", "Code Page Size", PK_HIST_ORD_NUM, k_code_page_size, 6),
	KEY_W("local_ins_lat", "Local INSTR Latency", PK_HIST_ORD_DESC_NUM, k_ins_lat, 13),
	KEY_W("ins_lat", "INSTR Latency", PK_HIST_ORD_GLOBAL, k_ins_lat, 13),
	{{.name = "local_p_stage_cyc", .title = "Local Pipeline Stage Cycle",
	  .order = PK_HIST_ORD_DESC_NUM, .pad_last = true, .arch = true, .entry_w = 13},
	 k_p_stage_cyc},
	{{.name = "p_stage_cyc", .title = "Pipeline Stage Cycle", .order = PK_HIST_ORD_GLOBAL,
	  .pad_last = true, .arch = true, .entry_w = 13},
	 k_p_stage_cyc},
	KEY_W("addr", "Address", PK_HIST_ORD_NUM, k_addr, 18),
	KEY("sample", "Samples", PK_HIST_ORD_COUNT, true, true, k_sample),
	KEY("period", "Period", PK_HIST_ORD_PERIOD, true, true, k_period),
	BRANCH_KEY("dso_from", "Source Shared Object", PK_HIST_ORD_DESC_TEXT, k_dso_from, PK_HIST_SIDE_FROM,
		   PK_HIST_U_MAP, 0),
	BRANCH_KEY("dso_to", "Target Shared Object", PK_HIST_ORD_DESC_TEXT, k_dso_to, PK_HIST_SIDE_TO,
		   PK_HIST_U_MAP, 0),
	BRANCH_KEY("symbol_from", "Source Symbol", PK_HIST_ORD_ADDR, k_sym_from, PK_HIST_SIDE_FROM, PK_HIST_U_SYM,
		   0),
	BRANCH_KEY("symbol_to", "Target Symbol", PK_HIST_ORD_ADDR, k_sym_to, PK_HIST_SIDE_TO, PK_HIST_U_SYM, 0),
	BRANCH_KEY("mispredict", "Branch Mispredicted", PK_HIST_ORD_TEXT, k_mispredict, PK_HIST_SIDE_ENTRY,
		   PK_HIST_U_NONE, 0),
	BRANCH_KEY("abort", "Transaction abort", PK_HIST_ORD_NUM, k_abort, PK_HIST_SIDE_ENTRY, PK_HIST_U_NONE,
		   0),
	BRANCH_KEY("in_tx", "Branch in transaction", PK_HIST_ORD_NUM, k_in_tx, PK_HIST_SIDE_ENTRY,
		   PK_HIST_U_NONE, 0),
	BRANCH_KEY("cycles", "Basic Block Cycles", PK_HIST_ORD_DESC_NUM, k_cycles, PK_HIST_SIDE_ENTRY,
		   PK_HIST_U_NONE, 0),
	BRANCH_KEY("srcline_from", "From Source:Line", PK_HIST_ORD_TEXT, k_srcline_from, PK_HIST_SIDE_FROM,
		   PK_HIST_U_NONE, 0),
	BRANCH_KEY("srcline_to", "To Source:Line", PK_HIST_ORD_TEXT, k_srcline_to, PK_HIST_SIDE_TO,
		   PK_HIST_U_NONE, 0),
	/* its IPC is not made here: "-" as ipc_null (perf refuses it in -s;
	 * it adds it to the branch view's "symbol" keys: not done here) */
	BRANCH_KEY("ipc_lbr", "IPC   [IPC Coverage]", PK_HIST_ORD_NUM, k_ipc_null, PK_HIST_SIDE_ENTRY,
		   PK_HIST_U_NONE, 0),
	BRANCH_KEY("addr_from", "Source Address", PK_HIST_ORD_NUM, k_addr_from, PK_HIST_SIDE_FROM, PK_HIST_U_NONE,
		   22),
	BRANCH_KEY("addr_to", "Target Address", PK_HIST_ORD_NUM, k_addr_to, PK_HIST_SIDE_TO, PK_HIST_U_NONE, 22),
	{{.name = "symbol_daddr", .title = "Data Symbol", .order = PK_HIST_ORD_NUM, .pad_last = true,
	  .level = true, .mem = true, .entry_w = 22},
	 k_symbol_daddr},
	MEM_KEY("dso_daddr", "Data Object", PK_HIST_ORD_TEXT, k_dso_daddr, 0),
	{{.name = "locked", .title = "Locked", .order = PK_HIST_ORD_NUM, .mem = true, .entry_w = 6},
	 k_locked},
	MEM_KEY("tlb", "TLB access", PK_HIST_ORD_NUM, k_tlb, 22),
	MEM_KEY("mem", "Memory access", PK_HIST_ORD_NUM, k_mem, 24),
	MEM_KEY("snoop", "Snoop", PK_HIST_ORD_NUM, k_snoop, 12),
	{{.name = "dcacheline", .title = "Data Cacheline", .order = PK_HIST_ORD_NUM, .mem = true,
	  .entry_w = 22},
	 k_dcacheline},
	MEM_KEY("symbol_iaddr", "Code Symbol", PK_HIST_ORD_NUM, k_symbol_iaddr, 22),
	{{.name = "phys_daddr", .title = "Data Physical Address", .order = PK_HIST_ORD_NUM,
	  .pad_last = true, .level = true, .mem = true, .entry_w = 22},
	 k_phys_daddr},
	MEM_KEY("data_page_size", "Data Page Size", PK_HIST_ORD_NUM, k_data_page_size, 22),
	{{.name = "blocked", .title = "Blocked", .order = PK_HIST_ORD_NUM, .mem = true, .entry_w = 10},
	 k_blocked},
	{{0}, NULL},
};

const pk_hist_key *pk_hist_key_find(const char *name)
{
	size_t n = strlen(name);
	for (const pki_hist_keydef *d = pki_hist_keys; d->k.name && n; d++)
		if (!strncasecmp(name, d->k.name, n))
			return &d->k;
	return NULL;
}

const pk_hist_key *pk_hist_key_nth(size_t i)
{
	/* the table ends with an empty row */
	return i + 1 < sizeof(pki_hist_keys) / sizeof(pki_hist_keys[0]) ? &pki_hist_keys[i].k : NULL;
}

bool pki_hist_key_children_repeat(const pk_hist_key *k)
{
	return !strcmp(k->name, "socket") || !strcmp(k->name, "time");
}

int pk_hist_key_width_min(const pk_hist_key *k)
{
	if (k->fixed_w)
		return k->fixed_w;
	if (!strcmp(k->name, "period") || !strcmp(k->name, "sample") ||
	    !strcmp(k->name, "time") || !strcmp(k->name, "weight") ||
	    !strcmp(k->name, "local_weight"))
		return 12;
	return (int)strlen(k->title);
}

/* ---- -F/--fields: the values (report_fields.c parses and prints) ---- */

static const pk_hist_value hist_values[] = {
	{"overhead", "Overhead", PK_HIST_V_OVERHEAD, PK_HIST_SELF, 8},
	{"overhead_sys", "sys", PK_HIST_V_SYS, PK_HIST_SYS, 8},
	{"overhead_us", "usr", PK_HIST_V_US, PK_HIST_US, 8},
	{"overhead_guest_sys", "guest sys", PK_HIST_V_GSYS, PK_HIST_GSYS, 9},
	{"overhead_guest_us", "guest usr", PK_HIST_V_GUS, PK_HIST_GUS, 9},
	{"overhead_children", "Children", PK_HIST_V_CHILDREN, PK_HIST_ACC, 8},
	{"sample", "Samples", PK_HIST_V_SAMPLE, PK_HIST_SELF_NR, 12},
	{"period", "Period", PK_HIST_V_PERIOD, PK_HIST_SELF, 12},
	{"overhead", "Self", PK_HIST_V_SELF, PK_HIST_SELF, 8}, /* never found by name */
};
#define NR_VALUES (sizeof(hist_values) / sizeof(hist_values[0]))

const pk_hist_value *pk_hist_value_nth(size_t i)
{
	return i < NR_VALUES ? &hist_values[i] : NULL;
}

const pk_hist_value *pk_hist_value_of(enum pk_hist_val v)
{
	for (size_t i = 0; i < NR_VALUES; i++)
		if (hist_values[i].val == v)
			return &hist_values[i];
	return &hist_values[0];
}

int pki_hist_fields_cmp(const pk_hist *rp, const pk_hist_entry *x, const pk_hist_entry *y)
{
	for (int i = 0; i < rp->o.nr_sort; i++) {
		pk_hist_field f = rp->o.sort[i];
		if (f.val == PK_HIST_V_KEY) {
			int c = pki_hist_out_key_cmp(rp, f.key, x, y, true);
			if (c)
				return c;
			continue;
		}
		int which = pk_hist_value_of(f.val)->which;
		for (int m = 0; m < rp->nr_members[x->ev]; m++)
			if (x->v[m * PK_HIST_NV + which] != y->v[m * PK_HIST_NV + which])
				return x->v[m * PK_HIST_NV + which] > y->v[m * PK_HIST_NV + which] ? -1 : 1;
	}
	return 0;
}
