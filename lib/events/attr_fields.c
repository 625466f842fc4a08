/* An evsel's perf_event_attr as named fields, for the views of `pmukit
 * encode` (events.h, pk_attr_fields): which fields each view shows, in
 * its order, their names (perf -vv's where perf prints them) and values;
 * and a bare attr's as perf_event_attr__fprintf lists them (a perf.data
 * header's event lines: pk_attr_fields_perf). The tools format them.
 *
 * Invariants: a view's field list and order are fixed (a field not set
 * for this attr is still listed, with set false), so a caller can rely on
 * names and positions; the count returned is the view's whole list even
 * when cap is smaller. */
#include <pmukit/events.h>
#include <pmukit/pmu.h>

typedef struct fields {
	pk_attr_field *v;
	size_t n, cap;
} fields;

static void add(fields *f, const char *name, uint64_t value, pk_attr_kind kind, bool set)
{
	if (f->n < f->cap)
		f->v[f->n] = (pk_attr_field){.name = name, .value = value, .kind = kind, .set = set};
	f->n++;
}

typedef struct named_bit {
	const char *name;
	uint64_t v;
} named_bit;

/* Each bit as a field of kind; set: non-zero, or always with all. */
static void add_bits(fields *f, const named_bit *bits, size_t nr, pk_attr_kind kind, bool all)
{
	for (size_t i = 0; i < nr; i++)
		add(f, bits[i].name, bits[i].v, kind, all || bits[i].v != 0);
}

/* The modifiers: encode's table flags column. */
static void flags_view(fields *f, const pk_evsel *e, const struct perf_event_attr *a)
{
	const named_bit mods[] = {
		{"exclude_user", a->exclude_user},   {"exclude_kernel", a->exclude_kernel},
		{"exclude_hv", a->exclude_hv},       {"exclude_host", a->exclude_host},
		{"exclude_guest", a->exclude_guest}, {"exclude_idle", a->exclude_idle},
		{"precise_ip=1", a->precise_ip == 1}, {"precise_ip=2", a->precise_ip == 2},
		{"precise_ip=3", a->precise_ip == 3}, {"precise_max", pk_evsel_precise_max(e)},
		{"pinned", a->pinned},               {"exclusive", a->exclusive},
		{"config3", pk_evsel_config3(e) != 0},
	};
	add_bits(f, mods, sizeof(mods) / sizeof(mods[0]), PK_ATTR_BOOL, false);
}

/* The bits perf -vv prints as numbers, in its order (text view). */
static void text_bits(fields *f, const struct perf_event_attr *a)
{
	const named_bit bits[] = {
		{"disabled", a->disabled}, {"inherit", a->inherit}, {"pinned", a->pinned},
		{"exclusive", a->exclusive}, {"exclude_user", a->exclude_user},
		{"exclude_kernel", a->exclude_kernel}, {"exclude_hv", a->exclude_hv},
		{"exclude_idle", a->exclude_idle}, {"freq", a->freq},
		{"enable_on_exec", a->enable_on_exec}, {"precise_ip", a->precise_ip},
		{"sample_id_all", a->sample_id_all}, {"exclude_host", a->exclude_host},
		{"exclude_guest", a->exclude_guest}, {"bp_type", a->bp_type},
		{"aux_output", a->aux_output},
	};
	add_bits(f, bits, sizeof(bits) / sizeof(bits[0]), PK_ATTR_UINT, false);
}

/* perf -vv's lines: what is set. */
static void text_view(fields *f, const pk_evsel *e, const struct perf_event_attr *a)
{
	uint64_t c3 = pk_evsel_config3(e);
	uint64_t words[4] = {a->config, a->config1, a->config2, c3};
	add(f, "type", a->type, PK_ATTR_UINT, true);
	add(f, "size", c3 ? PK_ATTR_SIZE_CONFIG3 : PK_ATTR_SIZE, PK_ATTR_UINT, true);
	for (int w = 0; w < 4; w++)
		add(f, pk_config_word_name(w), words[w], PK_ATTR_HEX, words[w] || w == 0);
	add(f, "{ sample_period, sample_freq }", a->sample_period, PK_ATTR_UINT,
	    a->sample_period != 0);
	add(f, "sample_type", a->sample_type, PK_ATTR_SAMPLE_TYPE, a->sample_type != 0);
	add(f, "read_format", a->read_format, PK_ATTR_READ_FORMAT, a->read_format != 0);
	text_bits(f, a);
	bool bp = a->type == PERF_TYPE_BREAKPOINT;
	add(f, "bp_addr", a->bp_addr, PK_ATTR_HEX, bp);
	add(f, "bp_len", a->bp_len, PK_ATTR_UINT, bp);
}

/* encode --json: every field (a breakpoint's only on breakpoints). */
static void json_view(fields *f, const pk_evsel *e, const struct perf_event_attr *a)
{
	add(f, "type", a->type, PK_ATTR_UINT, true);
	add(f, "config", a->config, PK_ATTR_HEX, true);
	add(f, "config1", a->config1, PK_ATTR_HEX, true);
	add(f, "config2", a->config2, PK_ATTR_HEX, true);
	add(f, "config3", pk_evsel_config3(e), PK_ATTR_HEX, true);
	bool leader = pk_evsel_is_leader(e);
	add(f, "group_leader", leader ? 0 : (uint64_t)pk_evsel_leader(e), PK_ATTR_EVSEL, !leader);
	const named_bit excl[] = {
		{"exclude_user", a->exclude_user},   {"exclude_kernel", a->exclude_kernel},
		{"exclude_hv", a->exclude_hv},       {"exclude_host", a->exclude_host},
		{"exclude_guest", a->exclude_guest}, {"exclude_idle", a->exclude_idle},
	};
	add_bits(f, excl, sizeof(excl) / sizeof(excl[0]), PK_ATTR_BOOL, true);
	add(f, "precise_ip", a->precise_ip, PK_ATTR_UINT, true);
	add(f, "precise_max", pk_evsel_precise_max(e), PK_ATTR_BOOL, true);
	add(f, "sample_period", a->sample_period, PK_ATTR_UINT, true);
	add(f, "freq", a->freq, PK_ATTR_BOOL, true);
	add(f, "sample_type", a->sample_type, PK_ATTR_HEX, true);
	add(f, "sample_type_names", a->sample_type, PK_ATTR_SAMPLE_TYPE, true);
	add(f, "read_format", a->read_format, PK_ATTR_HEX, true);
	add(f, "read_format_names", a->read_format, PK_ATTR_READ_FORMAT, true);
	const named_bit run[] = {
		{"disabled", a->disabled}, {"inherit", a->inherit},
		{"enable_on_exec", a->enable_on_exec}, {"pinned", a->pinned},
		{"exclusive", a->exclusive},
	};
	add_bits(f, run, sizeof(run) / sizeof(run[0]), PK_ATTR_BOOL, true);
	bool bp = a->type == PERF_TYPE_BREAKPOINT;
	add(f, "bp_type", a->bp_type, PK_ATTR_UINT, bp);
	add(f, "bp_addr", a->bp_addr, PK_ATTR_HEX, bp);
	add(f, "bp_len", a->bp_len, PK_ATTR_UINT, bp);
}

size_t pk_attr_fields(const pk_evsel *e, pk_attr_view view, pk_attr_field *out, size_t cap)
{
	fields f = {.v = out, .cap = out ? cap : 0};
	const struct perf_event_attr *a = pk_evsel_attr(e);
	if (view == PK_ATTR_VIEW_FLAGS)
		flags_view(&f, e, a);
	else if (view == PK_ATTR_VIEW_TEXT)
		text_view(&f, e, a);
	else
		json_view(&f, e, a);
	return f.n;
}

/* perf_event_attr__fprintf's bits and small fields, in its order. */
static void perf_bits(fields *f, const struct perf_event_attr *a)
{
#define U(x) add(f, #x, (uint64_t)a->x, PK_ATTR_UINT, a->x != 0)
	U(disabled); U(inherit); U(pinned); U(exclusive); U(exclude_user); U(exclude_kernel);
	U(exclude_hv); U(exclude_idle); U(mmap); U(comm); U(freq); U(inherit_stat);
	U(enable_on_exec); U(task); U(watermark); U(precise_ip); U(mmap_data); U(sample_id_all);
	U(exclude_host); U(exclude_guest); U(exclude_callchain_kernel);
	U(exclude_callchain_user); U(mmap2); U(comm_exec); U(use_clockid); U(context_switch);
	U(write_backward); U(namespaces); U(ksymbol); U(bpf_event); U(aux_output); U(cgroup);
	U(text_poke); U(build_id); U(inherit_thread); U(remove_on_exec); U(sigtrap);
#undef U
}

size_t pk_attr_fields_perf(const struct perf_event_attr *a, pk_attr_field *out, size_t cap)
{
	fields f = {.v = out, .cap = out ? cap : 0};
#define V(name, x, kind) add(&f, name, (uint64_t)a->x, kind, a->x != 0)
	V("type", type, PK_ATTR_UINT);
	V("size", size, PK_ATTR_UINT);
	V("config", config, PK_ATTR_HEX);
	V("{ sample_period, sample_freq }", sample_period, PK_ATTR_UINT);
	V("sample_type", sample_type, PK_ATTR_SAMPLE_TYPE);
	V("read_format", read_format, PK_ATTR_READ_FORMAT);
	perf_bits(&f, a);
	V("{ wakeup_events, wakeup_watermark }", wakeup_events, PK_ATTR_UINT);
	V("bp_type", bp_type, PK_ATTR_UINT);
	V("{ bp_addr, config1 }", bp_addr, PK_ATTR_HEX);
	V("{ bp_len, config2 }", bp_len, PK_ATTR_HEX);
	V("branch_sample_type", branch_sample_type, PK_ATTR_BRANCH_TYPE);
	V("sample_regs_user", sample_regs_user, PK_ATTR_HEX);
	V("sample_stack_user", sample_stack_user, PK_ATTR_UINT);
	add(&f, "clockid", (uint64_t)(int64_t)a->clockid, PK_ATTR_INT, a->clockid != 0);
	V("sample_regs_intr", sample_regs_intr, PK_ATTR_HEX);
	V("aux_watermark", aux_watermark, PK_ATTR_UINT);
	V("sample_max_stack", sample_max_stack, PK_ATTR_UINT);
	V("aux_sample_size", aux_sample_size, PK_ATTR_UINT);
	V("sig_data", sig_data, PK_ATTR_UINT);
#undef V
	return f.n;
}
