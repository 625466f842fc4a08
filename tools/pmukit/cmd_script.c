/* pmukit script: print the samples of a perf.data file, one line each, in
 * perf script's layout (fields, widths and order as perf 6.1 prints them). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "pd_session.h"

const char script_usage[] =
	"usage: pmukit script [-i FILE] [-F FIELDS] [--ns] [-G]\n"
	"\n"
	"Prints every sample of a perf.data file (default ./perf.data, or standard\n"
	"input when it is a pipe) the way perf script does.\n"
	"\n"
	"  -i, --input FILE        input file ('-' for standard input)\n"
	"  -F, --fields LIST       fields to print: comm,tid,pid,cpu,time,event,ip,sym,\n"
	"                          symoff,dso,addr,phys_addr,period,weight,data_src,\n"
	"                          data_page_size,code_page_size,cgroup; an optional\n"
	"                          type prefix (hw:, sw:, trace:, raw:) as perf;\n"
	"                          +field / -field change the default set\n"
	"      --ns                times in nanoseconds\n"
	"  -G, --hide-call-graph   do not print call chains\n"
	"      --no-order          print in file order, not time order\n";

enum {
	F_COMM = 1 << 0,
	F_TID = 1 << 1,
	F_PID = 1 << 2,
	F_CPU = 1 << 3,
	F_TIME = 1 << 4,
	F_EVNAME = 1 << 5,
	F_IP = 1 << 6,
	F_SYM = 1 << 7,
	F_SYMOFF = 1 << 8,
	F_DSO = 1 << 9,
	F_ADDR = 1 << 10,
	F_PHYS_ADDR = 1 << 11,
	F_PERIOD = 1 << 12,
	F_WEIGHT = 1 << 13,
	F_DATA_SRC = 1 << 14,
	F_DATA_PAGE_SIZE = 1 << 15,
	F_CODE_PAGE_SIZE = 1 << 16,
	F_CGROUP = 1 << 17,
};

static const struct field_def {
	const char *name;
	unsigned bit;
	uint64_t needs;              /* sample_type bits the field needs */
	const char *attr;            /* as perf names the missing attribute */
} field_defs[] = {
	{"comm", F_COMM, PERF_SAMPLE_TID, "TID"},
	{"tid", F_TID, PERF_SAMPLE_TID, "TID"},
	{"pid", F_PID, PERF_SAMPLE_TID, "TID"},
	{"cpu", F_CPU, PERF_SAMPLE_CPU, "CPU"},
	{"time", F_TIME, PERF_SAMPLE_TIME, "TIME"},
	{"event", F_EVNAME, 0, NULL},
	{"ip", F_IP, PERF_SAMPLE_IP, "IP"},
	{"sym", F_SYM, PERF_SAMPLE_IP, "IP"},
	{"symoff", F_SYMOFF, PERF_SAMPLE_IP, "IP"},
	{"dso", F_DSO, PERF_SAMPLE_IP, "IP"},
	{"addr", F_ADDR, PERF_SAMPLE_ADDR, "ADDR"},
	{"phys_addr", F_PHYS_ADDR, PERF_SAMPLE_PHYS_ADDR, "PHYS_ADDR"},
	{"period", F_PERIOD, 0, NULL}, /* the attr's period when samples lack it */
	{"weight", F_WEIGHT, PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT, "WEIGHT"},
	{"data_src", F_DATA_SRC, PERF_SAMPLE_DATA_SRC, "DATA_SRC"},
	{"data_page_size", F_DATA_PAGE_SIZE, PERF_SAMPLE_DATA_PAGE_SIZE, "DATA_PAGE_SIZE"},
	{"code_page_size", F_CODE_PAGE_SIZE, PERF_SAMPLE_CODE_PAGE_SIZE, "CODE_PAGE_SIZE"},
	{"cgroup", F_CGROUP, PERF_SAMPLE_CGROUP, "CGROUP"},
};

/* perf 6.1's default for hardware/software/raw events. */
#define DEFAULT_FIELDS                                                                            \
	(F_COMM | F_TID | F_CPU | F_TIME | F_EVNAME | F_IP | F_SYM | F_SYMOFF | F_DSO | F_PERIOD)

typedef struct script {
	pd_out out;
	unsigned fields;             /* as asked */
	bool user_fields;            /* -F given (not +/-) */
	const char *type_filter;     /* "hw", "sw" ... or NULL: every event */
	bool ns;
	bool hide_callchain;
	int name_width;
	unsigned *evsel_fields;      /* per evsel, after checking sample_type */
	size_t nr_evsel_fields;
	bool checked;
	int status;
} script;

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

static int parse_fields(script *sc, const char *arg)
{
	char *copy = strdup(arg);
	if (!copy)
		return -ENOMEM;
	char *list = copy;
	char *colon = strchr(list, ':');
	char *comma = strchr(list, ',');
	if (colon && (!comma || colon < comma)) {
		*colon = '\0';
		static const char *const types[] = {"hw", "sw", "trace", "raw", "synth", "break"};
		bool ok = false;
		for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
			ok |= !strcmp(list, types[i]);
		if (!ok) {
			fprintf(stderr, "pmukit script: invalid event type '%s' in field string\n", list);
			free(copy);
			return -EINVAL;
		}
		sc->type_filter = strcmp(list, "hw") == 0   ? "hw"
				  : strcmp(list, "sw") == 0 ? "sw"
				  : strcmp(list, "trace") == 0 ? "trace"
							       : "raw";
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
			fprintf(stderr, "pmukit script: invalid field requested: '%s'\n", tok);
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
	if (modify && set) {
		fprintf(stderr, "pmukit script: cannot mix +-field with overridden fields\n");
		return -EINVAL;
	}
	if (modify) {
		sc->fields = (DEFAULT_FIELDS | add) & ~del;
		sc->user_fields = false;
	} else {
		sc->fields = set;
		sc->user_fields = true;
	}
	return 0;
}

/* Checks the fields against each event's sample_type, as perf does:
 * asked-for fields the samples lack are an error, defaults are dropped. */
static int check_fields(script *sc, pk_pd_reader *r)
{
	size_t n = pk_pd_nr_evsels(r);
	sc->evsel_fields = calloc(n ? n : 1, sizeof(unsigned));
	if (!sc->evsel_fields)
		return -ENOMEM;
	sc->nr_evsel_fields = n;
	for (size_t i = 0; i < n; i++) {
		const pk_pd_evsel *e = pk_pd_evsel_at(r, i);
		uint64_t st = e->attr.sample_type;
		bool applies = !sc->type_filter || !strcmp(sc->type_filter, event_type_name(e->attr.type));
		bool user = sc->user_fields && applies;
		unsigned f = user ? sc->fields : applies ? sc->fields : DEFAULT_FIELDS;
		if (!user && e->attr.type == PERF_TYPE_SOFTWARE && e->attr.config == PERF_COUNT_SW_DUMMY)
			continue;
		for (size_t k = 0; k < sizeof(field_defs) / sizeof(field_defs[0]); k++) {
			const struct field_def *d = &field_defs[k];
			if (!(f & d->bit) || !d->needs || (st & d->needs))
				continue;
			if (user) {
				fprintf(stderr,
					"Samples for '%s' event do not have %s attribute set. "
					"Cannot print '%s' field.\n",
					pk_pd_evsel_name(e), d->attr, d->name);
				return -EINVAL;
			}
			f &= ~d->bit;
		}
		sc->evsel_fields[i] = f;
		int w = (int)strlen(pk_pd_evsel_name(e));
		if (w > sc->name_width)
			sc->name_width = w;
	}
	return 0;
}

static void print_loc(script *sc, unsigned f, const pk_addr_loc *loc)
{
	pd_out *o = &sc->out;
	if (f & F_SYM) {
		pd_out_ch(o, ' ');
		if (loc->sym) {
			pd_out_mem(o, loc->sym, loc->sym_len);
			if (f & F_SYMOFF) {
				pd_out_lit(o, "+0x");
				pd_out_hex(o, loc->symoff, 0);
			}
		} else {
			pd_out_lit(o, "[unknown]");
		}
	}
	if (f & F_DSO) {
		pd_out_mem(o, " (", 2);
		pd_out_mem(o, loc->dso, loc->dso_len);
		pd_out_ch(o, ')');
	}
}

static int on_sample(void *arg, pd_session *s, const pk_pd_event *ev, const pk_pd_sample *smp)
{
	script *sc = arg;
	pd_out *o = &sc->out;
	if (!sc->checked) {
		sc->checked = true;
		if (check_fields(sc, s->reader) < 0)
			return 1;
	}
	const pk_pd_evsel *e = ev->evsel;
	unsigned f = (size_t)e->idx < sc->nr_evsel_fields ? sc->evsel_fields[e->idx] : 0;
	if (!f)
		return 0;
	bool chain = (f & F_IP) && smp->callchain && !sc->hide_callchain;
	if (f & F_COMM) {
		const char *comm = pk_machine_comm(s->machine, smp->pid, smp->tid);
		if (chain) {
			pd_out_str(o, comm);
			pd_out_ch(o, ' ');
		} else {
			pd_out_pad_str(o, comm, 16);
			pd_out_ch(o, ' ');
		}
	}
	if ((f & F_PID) && (f & F_TID)) {
		pd_out_int(o, (int)smp->pid, 5);
		pd_out_ch(o, '/');
		pd_out_int(o, (int)smp->tid, -5);
		pd_out_ch(o, ' ');
	} else if (f & (F_PID | F_TID)) {
		pd_out_int(o, (int)((f & F_PID) ? smp->pid : smp->tid), 5);
		pd_out_ch(o, ' ');
	}
	if (f & F_CPU) {
		char cb[16];
		int cpu = (int)smp->cpu;
		cb[0] = '[';
		cb[1] = (char)('0' + cpu / 100 % 10);
		cb[2] = (char)('0' + cpu / 10 % 10);
		cb[3] = (char)('0' + cpu % 10);
		if (cpu >= 0 && cpu < 1000) {
			pd_out_mem(o, cb, 4);
			pd_out_lit(o, "] ");
		} else {
			pd_out_printf(o, "[%03d] ", cpu);
		}
	}
	if (f & F_TIME) {
		uint64_t t = smp->time;
		if (sc->ns) {
			pd_out_printf(o, "%5" PRIu64 ".%09" PRIu64 ": ", t / 1000000000, t % 1000000000);
		} else {
			/* "%12s: " of secs.usecs, the usecs truncated */
			uint64_t us = t / 1000;
			char tb[40];
			int n = 0;
			uint64_t frac = us % 1000000, secs = us / 1000000;
			for (int k = 0; k < 6; k++, frac /= 10)
				tb[sizeof(tb) - 1 - n++] = (char)('0' + frac % 10);
			tb[sizeof(tb) - 1 - n++] = '.';
			do {
				tb[sizeof(tb) - 1 - n++] = (char)('0' + secs % 10);
				secs /= 10;
			} while (secs);
			for (; n < 12; n++)
				tb[sizeof(tb) - 1 - n] = ' ';
			pd_out_mem(o, tb + sizeof(tb) - n, (size_t)n);
			pd_out_mem(o, ": ", 2);
		}
	}
	if (f & F_PERIOD) {
		pd_out_u64(o, smp->period, 10);
		pd_out_ch(o, ' ');
	}
	if (f & F_EVNAME) {
		pd_out_pad_str(o, pk_pd_evsel_name(e), sc->name_width);
		pd_out_lit(o, ": ");
	}
	if (f & F_ADDR)
		pd_out_hex(o, smp->addr, 16);
	if (f & F_DATA_SRC) {
		pd_out_hex(o, smp->data_src, 16);
	}
	if (f & F_WEIGHT)
		pd_out_u64(o, smp->weight, 16);
	unsigned cpumode = ev->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	if (chain) {
		pd_out_ch(o, '\n');
		unsigned mode = cpumode;
		/* a bad context marker makes perf drop the chain */
		uint64_t nr = smp->callchain_nr;
		for (uint64_t i = 0; i < nr; i++)
			if (smp->callchain[i] >= (uint64_t)-4095 &&
			    pk_callchain_context(smp->callchain[i], &mode) < 0)
				nr = 0;
		mode = cpumode;
		int printed = 0;
		for (uint64_t i = 0; i < nr && printed < PK_MAX_STACK; i++) {
			uint64_t ip = smp->callchain[i];
			if (pk_callchain_context(ip, &mode))
				continue;
			printed++;
			const pk_addr_loc *loc = pk_machine_lookup(s->machine, smp->pid, mode, ip);
			pd_out_ch(o, '\t');
			/* perf prints chain entries in a dso relative to the map */
			pd_out_hex(o, loc->has_map ? loc->dso_addr : ip, 16);
			print_loc(sc, f, loc);
			pd_out_ch(o, '\n');
		}
	} else if (f & (F_IP | F_SYM | F_DSO)) {
		const pk_addr_loc *loc = pk_machine_lookup(s->machine, smp->pid, cpumode, smp->ip);
		pd_out_ch(o, ' ');
		if (f & F_IP)
			pd_out_hex(o, smp->ip, 16);
		print_loc(sc, f, loc);
	}
	if (f & F_PHYS_ADDR)
		pd_out_hex(o, smp->phys_addr, 16);
	if (f & F_DATA_PAGE_SIZE)
		pd_out_printf(o, " %" PRIu64, smp->data_page_size);
	if (f & F_CODE_PAGE_SIZE)
		pd_out_printf(o, " %" PRIu64, smp->code_page_size);
	if (f & F_CGROUP)
		pd_out_printf(o, " %" PRIu64, smp->cgroup);
	pd_out_ch(o, '\n');
	return 0;
}

int cmd_script(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"input", required_argument, NULL, 'i'},
		{"fields", required_argument, NULL, 'F'},
		{"ns", no_argument, NULL, 'n'},
		{"hide-call-graph", no_argument, NULL, 'G'},
		{"no-order", no_argument, NULL, 'O'},
		{NULL, 0, NULL, 0},
	};
	script sc;
	memset(&sc, 0, sizeof(sc));
	sc.fields = DEFAULT_FIELDS;
	const char *input = NULL;
	bool no_order = false;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+i:F:G", longopts, NULL)) != -1) {
		switch (c) {
		case 'i': input = optarg; break;
		case 'F':
			if (parse_fields(&sc, optarg) < 0)
				return 129;
			break;
		case 'n': sc.ns = true; break;
		case 'G': sc.hide_callchain = true; break;
		case 'O': no_order = true; break;
		default:
			return pk_cli_usage_error("script", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return pk_cli_usage_error("script", "unexpected argument '%s'", argv[optind]);
	pd_session s;
	if (pd_session_open(&s, "script", input, no_order))
		return 1;
	pd_out_init(&sc.out, stdout);
	int rc = pd_session_run(&s, on_sample, &sc);
	pd_out_free(&sc.out);
	free(sc.evsel_fields);
	pd_session_close(&s);
	return rc;
}
