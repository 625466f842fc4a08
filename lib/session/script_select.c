/* perf script 6.1's -F field list (pmukit/script.h): parsed once into
 * the fields asked (a list, or +/- changes to the defaults, for one event
 * type or all), then checked once per event against its sample_type, as
 * perf does: a field asked for that the samples lack is refused, a default
 * one is dropped; dummy events print nothing unless asked. The defaults
 * per event type and the attribute each field needs are the table below.
 * Nothing here prints: the errors go into pk_error in perf's words. */
#include <pmukit/script.h>

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define F(name) PK_SCRIPT_F_##name

static const struct field_def {
	const char *name;
	unsigned bit;
	uint64_t needs;              /* sample_type bits the field needs */
	const char *attr;            /* as perf names the missing attribute */
	bool aux;                    /* asked for, allowed in a file with an AUX trace */
} field_defs[] = {
	{"comm", F(COMM), PERF_SAMPLE_TID, "TID"},
	{"tid", F(TID), PERF_SAMPLE_TID, "TID"},
	{"pid", F(PID), PERF_SAMPLE_TID, "TID"},
	{"cpu", F(CPU), PERF_SAMPLE_CPU, "CPU", true},
	{"time", F(TIME), PERF_SAMPLE_TIME, "TIME"},
	{"event", F(EVNAME), 0, NULL},
	{"ip", F(IP), PERF_SAMPLE_IP, "IP"},
	{"sym", F(SYM), PERF_SAMPLE_IP, "IP"},
	{"symoff", F(SYMOFF), PERF_SAMPLE_IP, "IP"},
	{"dso", F(DSO), PERF_SAMPLE_IP, "IP"},
	{"addr", F(ADDR), PERF_SAMPLE_ADDR, "ADDR", true},
	{"phys_addr", F(PHYS_ADDR), PERF_SAMPLE_PHYS_ADDR, "PHYS_ADDR", true},
	{"period", F(PERIOD), 0, NULL}, /* the attr's period when samples lack it */
	{"weight", F(WEIGHT), PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT, "WEIGHT", true},
	{"ins_lat", F(INS_LAT), PERF_SAMPLE_WEIGHT_STRUCT, "WEIGHT_STRUCT"},
	{"data_src", F(DATA_SRC), PERF_SAMPLE_DATA_SRC, "DATA_SRC", true},
	{"data_page_size", F(DATA_PAGE_SIZE), PERF_SAMPLE_DATA_PAGE_SIZE, "DATA_PAGE_SIZE"},
	{"code_page_size", F(CODE_PAGE_SIZE), PERF_SAMPLE_CODE_PAGE_SIZE, "CODE_PAGE_SIZE"},
	{"cgroup", F(CGROUP), PERF_SAMPLE_CGROUP, "CGROUP"},
	{"trace", F(TRACE), PERF_SAMPLE_RAW, "RAW"},
	{"iregs", F(IREGS), PERF_SAMPLE_REGS_INTR, "IREGS", true},
	{"uregs", F(UREGS), PERF_SAMPLE_REGS_USER, "UREGS"},
	{"flags", F(FLAGS), 0, NULL}, /* synthesized samples' branch flags: none yet */
	{"misc", F(MISC), 0, NULL},
	{"tod", F(TOD), 0, NULL},
	{"callindent", F(CALLINDENT), 0, NULL},
	/* perf 6.1 checks no branch field: samples without a stack print none */
	{"brstack", F(BRSTACK), 0, NULL},
	{"brstacksym", F(BRSTACKSYM), 0, NULL},
	{"brstackoff", F(BRSTACKOFF), 0, NULL},
	{"srcline", F(SRCLINE), PERF_SAMPLE_IP, "IP"},
	{"metric", F(METRIC), 0, NULL},
};

/* perf 6.1's default for hardware/software events (and other PMUs). */
#define DEFAULT_FIELDS                                                                            \
	(F(COMM) | F(TID) | F(CPU) | F(TIME) | F(EVNAME) | F(IP) | F(SYM) | F(SYMOFF) | F(DSO) |  \
	 F(PERIOD))
/* Raw events (the core PMU's memory events among them) add the memory
 * fields, printed when the samples have them. */
#define RAW_FIELDS                                                                                \
	(DEFAULT_FIELDS | F(ADDR) | F(DATA_SRC) | F(WEIGHT) | F(INS_LAT) | F(PHYS_ADDR) |         \
	 F(DATA_PAGE_SIZE) | F(CODE_PAGE_SIZE))

/* Tracepoints print their payload instead of the period and address. */
#define TRACE_FIELDS (F(COMM) | F(TID) | F(CPU) | F(TIME) | F(EVNAME) | F(TRACE))
/* Synthesized events (Intel PT's psb, cbr) their payload, no period. */
#define SYNTH_FIELDS                                                                              \
	(F(COMM) | F(TID) | F(CPU) | F(TIME) | F(EVNAME) | F(SYNTH) | F(IP) | F(SYM) | F(SYMOFF) | \
	 F(DSO))

static unsigned default_fields(uint32_t type)
{
	return type == PERF_TYPE_RAW ? RAW_FIELDS
	       : type == PERF_TYPE_TRACEPOINT ? TRACE_FIELDS
	       : type == PK_SESSION_SYNTH_TYPE ? SYNTH_FIELDS
					       : DEFAULT_FIELDS;
}

static const char *event_type_name(uint32_t type)
{
	switch (type) {
	case PERF_TYPE_HARDWARE:
	case PERF_TYPE_HW_CACHE: return "hw";
	case PERF_TYPE_SOFTWARE: return "sw";
	case PERF_TYPE_TRACEPOINT: return "trace";
	case PERF_TYPE_RAW: return "raw";
	default: return "raw"; /* dynamic PMUs print like raw events */
	}
}

/* The event type -F's "type:" prefix names, as a static string. */
static int parse_type(pk_script_fields *sel, const char *type, pk_error *err)
{
	static const char *const types[] = {"hw", "sw", "trace", "raw", "synth", "break"};
	bool ok = false;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		ok |= !strcmp(type, types[i]);
	if (!ok)
		return pk_err(err, -EINVAL, "invalid event type '%s' in field string", type);
	sel->type_filter = strcmp(type, "hw") == 0	? "hw"
			   : strcmp(type, "sw") == 0	? "sw"
			   : strcmp(type, "trace") == 0 ? "trace"
							: "raw";
	return 0;
}

int pk_script_fields_parse(pk_script_fields *sel, const char *arg, pk_error *err)
{
	if (!*arg) /* perf 6.1's words and status (129) */
		return pk_err(err, -EINVAL, "-F '': cannot set fields to 'none' for all event types");
	char *copy = strdup(arg);
	if (!copy)
		return pk_err(err, -ENOMEM, "-F: out of memory");
	char *list = copy;
	char *colon = strchr(list, ':');
	char *comma = strchr(list, ',');
	if (colon && (!comma || colon < comma)) {
		*colon = '\0';
		int rc = parse_type(sel, list, err);
		if (rc < 0) {
			free(copy);
			return rc;
		}
		list = colon + 1;
	}
	unsigned set = 0, add = 0, del = 0;
	bool modify = false;
	for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
		int mode = 0;
		if (*tok == '+' || *tok == '-') {
			mode = *tok == '+' ? 1 : -1;
			modify = true;
			tok++;
		}
		unsigned bit = 0;
		for (size_t i = 0; i < sizeof(field_defs) / sizeof(field_defs[0]); i++)
			if (!strcmp(tok, field_defs[i].name))
				bit = field_defs[i].bit;
		if (!bit) {
			pk_err(err, -EINVAL, "invalid field requested: '%s'", tok);
			free(copy);
			return -EINVAL;
		}
		if (mode > 0)
			add |= bit;
		else if (mode < 0)
			del |= bit;
		else
			set |= bit;
	}
	free(copy);
	if (modify && set)
		return pk_err(err, -EINVAL, "cannot mix +-field with overridden fields");
	if (modify) {
		sel->add = add;
		sel->del = del;
		sel->user = false;
	} else {
		sel->fields = set;
		sel->user = true;
	}
	return 0;
}

/* perf 6.1 in pipe mode: the attrs arrive after -F was read, and when the
 * file's events have call chains (or a branch stack, or user regs and
 * stack) each one turns ip and sym on for its event type, unless -F took
 * them off. */
static unsigned pipe_chain_fields(const pk_script_fields *sel, pk_session *s, bool hide_callchain)
{
	if (!pk_pd_is_pipe(pk_session_reader(s)) || hide_callchain)
		return 0;
	uint64_t st = 0;
	for (size_t i = 0; i < pk_session_nr_evsels(s); i++)
		st |= pk_session_evsel_at(s, i)->attr.sample_type;
	bool chains = (st & (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_BRANCH_STACK)) ||
		      ((st & PERF_SAMPLE_REGS_USER) && (st & PERF_SAMPLE_STACK_USER));
	return chains ? (F(IP) | F(SYM)) & ~sel->del : 0;
}

/* perf checks a pipe's events as their attr records come: its name then
 * is the attr's, and its refusal fails the record (its offset in the
 * stream, the attrs coming first, and its size, in perf's line). */
static int field_refused(pk_session *s, size_t i, const char *field, const char *attr,
			 pk_error *err)
{
	const pk_pd_reader *r = pk_session_reader(s);
	const pk_pd_evsel *e = pk_session_evsel_at(s, i);
	bool pipe = pk_pd_is_pipe(r);
	int rc = pk_err(err, -EINVAL,
			"Samples for '%s' event do not have %s attribute set. Cannot print '%s' field.",
			pipe && e->attr_name[0] ? e->attr_name : pk_pd_evsel_name(e), attr, field);
	if (!pipe)
		return rc;
	uint64_t head = 0, size = 0;
	for (size_t j = 0; j <= i; j++) {
		const pk_pd_evsel *a = pk_session_evsel_at(s, j);
		head += size;
		size = 8 + (a->file_attr_size ? a->file_attr_size : 64) + 8 * (uint64_t)a->nr_ids;
	}
	pk_err_hint(err, "%#" PRIx64 " [%#" PRIx64 "]: failed to process type: %d", head, size,
		    PK_RECORD_HEADER_ATTR);
	return rc;
}

/* Checks the fields against each event's sample_type, as perf does:
 * asked-for fields the samples lack are an error, defaults are dropped. */
int pk_script_fields_check(const pk_script_fields *sel, pk_session *s, bool hide_callchain,
			   unsigned *out, int *name_width, pk_error *err)
{
	size_t n = pk_session_nr_evsels(s);
	/* perf 6.1: when a tracepoint event has call chains (and -G is not
	 * given), the tracepoints' default fields gain ip, sym, symoff and
	 * dso: their chains are printed under the payload */
	unsigned trace_add = 0;
	/* any -F for tracepoints (a list, +field or -field, for them or for
	 * all types) is perf's user_set there: no chain fields added */
	bool trace_set = (sel->user || sel->add || sel->del) &&
			 (!sel->type_filter || !strcmp(sel->type_filter, "trace"));
	for (size_t i = 0; i < n && !hide_callchain && !trace_set; i++) {
		const pk_pd_evsel *e = pk_session_evsel_at(s, i);
		if (e->attr.type == PERF_TYPE_TRACEPOINT &&
		    (e->attr.sample_type & PERF_SAMPLE_CALLCHAIN))
			trace_add = F(IP) | F(SYM) | F(SYMOFF) | F(DSO);
	}
	unsigned pipe_add = pipe_chain_fields(sel, s, hide_callchain);
	/* perf 6.1 lets -F name some fields an event lacks when the file has
	 * an AUX trace (its synthesized samples may have them): printed from
	 * the sample's defaults (cpu -1, as "[-01]") */
	bool aux = pk_pd_has_feature(pk_session_reader(s), PK_FEAT_AUXTRACE);
	for (size_t i = 0; i < n; i++) {
		const pk_pd_evsel *e = pk_session_evsel_at(s, i);
		uint64_t st = e->attr.sample_type;
		bool applies = !sel->type_filter || !strcmp(sel->type_filter, event_type_name(e->attr.type));
		bool user = sel->user && applies;
		unsigned base = default_fields(e->attr.type);
		bool payload = pk_session_trace_usable(s, e);
		if (e->attr.type == PERF_TYPE_TRACEPOINT)
			base = payload ? base | trace_add
				       : DEFAULT_FIELDS; /* no tracing data: the numeric fields (said once) */
		unsigned f = user ? sel->fields : applies ? (base | sel->add) & ~sel->del : base;
		if (!payload)
			f &= ~F(TRACE); /* perf: "'trace' not valid for ... events. Ignoring." */
		out[i] = 0;
		if (!user && e->attr.type == PERF_TYPE_SOFTWARE && e->attr.config == PERF_COUNT_SW_DUMMY)
			continue;
		for (size_t k = 0; k < sizeof(field_defs) / sizeof(field_defs[0]); k++) {
			const struct field_def *d = &field_defs[k];
			if (!(f & d->bit) || !d->needs || (st & d->needs))
				continue;
			if (user && aux && d->aux)
				continue;
			if (user)
				return field_refused(s, i, d->name, d->attr, err);
			f &= ~d->bit;
		}
		if (user && (f & F(SYMOFF)) && !(f & F(SYM))) /* perf's typo too */
			return pk_err(err, -EINVAL,
				      "Display of offsets requested but symbol is notselected.");
		if (user && (st & PERF_SAMPLE_IP))
			f |= pipe_add;
		out[i] = f;
		int w = (int)strlen(pk_pd_evsel_name(e));
		if (w > *name_width)
			*name_width = w;
	}
	return 0;
}

