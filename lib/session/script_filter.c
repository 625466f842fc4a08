/* perf script 6.1's sample filters (pmukit/script.h): lists are
 * comma-separated; comms match the thread's name, pids and tids the
 * sample's ids, the time perf's --time windows (pmukit/timerange.h: a
 * percent form is made when the file's span is known,
 * pk_script_filter_span), cpus the sample's CPU, syms the symbol name of the sample's
 * address, dsos its dso as a path or a file name. Every list is parsed once,
 * by pk_script_filter_add; pk_script_filter_keep only compares. */
#include <pmukit/script.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <pmukit/cpumap.h>
#include <pmukit/timerange.h>

struct pk_script_filter {
	char **comms, **syms, **dsos;
	size_t nr_comms, nr_syms, nr_dsos;
	long *pids, *tids;
	size_t nr_pids, nr_tids;
	bool has_time;
	pk_time_window *tw;          /* the windows, once made */
	size_t nr_tw;
	char *time_pct;              /* a percent form, made by pk_script_filter_span */
	int *cpus;                   /* the CPUs kept */
	size_t nr_cpus;
};

/* "a,b,c" appended to a NULL-free array of copies. */
static int split(const char *arg, char ***out, size_t *nr)
{
	char *copy = strdup(arg), *save = NULL;
	if (!copy)
		return -ENOMEM;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char **grown = realloc(*out, (*nr + 1) * sizeof(char *));
		char *dup = strdup(t);
		if (!grown || !dup) {
			free(grown ? NULL : dup);
			if (grown)
				*out = grown;
			free(copy);
			return -ENOMEM;
		}
		*out = grown;
		(*out)[(*nr)++] = dup;
	}
	free(copy);
	return 0;
}

static int parse_ids(const char *opt, const char *arg, long **out, size_t *nr, pk_error *err)
{
	char **words = NULL;
	size_t n = 0;
	int rc = split(arg, &words, &n);
	*out = rc == 0 ? calloc(n ? n : 1, sizeof(long)) : NULL;
	if (rc == 0 && !*out)
		rc = -ENOMEM;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		char *end;
		errno = 0;
		(*out)[i] = strtol(words[i], &end, 10);
		if (errno || *end || end == words[i])
			rc = pk_err(err, -EINVAL, "%s: '%s' is not a number", opt, words[i]);
	}
	for (size_t i = 0; i < n; i++)
		free(words[i]);
	free(words);
	*nr = rc == 0 ? n : 0;
	return rc;
}

static int parse_range(pk_script_filter *f, const char *arg, pk_error *err)
{
	pk_time_window *w = NULL;
	size_t n = 0;
	/* a percent form checked on a span of 1 s, made when the file's is known */
	int rc = pk_time_windows_parse(arg, true, 0, 1000000000, &w, &n, err);
	if (rc)
		return rc;
	free(f->tw);
	free(f->time_pct);
	f->tw = w, f->nr_tw = n, f->time_pct = NULL;
	if (pk_time_is_percent(arg) && !(f->time_pct = strdup(arg)))
		return -ENOMEM;
	f->has_time = true;
	return 0;
}

int pk_script_filter_span(pk_script_filter *f, bool has_span, uint64_t first, uint64_t last,
			  pk_error *err)
{
	if (!f || !f->time_pct)
		return 0;
	free(f->tw);
	f->tw = NULL;
	return pk_time_windows_parse(f->time_pct, has_span, first, last, &f->tw, &f->nr_tw, err);
}

static int parse_cpus(pk_script_filter *f, const char *arg, pk_error *err)
{
	pk_error e;
	pk_error_clear(&e);
	pk_cpumap *m = pk_cpumap_parse(arg, &e);
	if (!m)
		return pk_err(err, -EINVAL, "-C '%s': %s", arg, e.msg);
	f->nr_cpus = (size_t)pk_cpumap_nr(m);
	f->cpus = calloc(f->nr_cpus ? f->nr_cpus : 1, sizeof(int));
	for (size_t i = 0; f->cpus && i < f->nr_cpus; i++)
		f->cpus[i] = pk_cpumap_cpu(m, (int)i);
	pk_cpumap_put(m);
	return f->cpus ? 0 : -ENOMEM;
}

pk_script_filter *pk_script_filter_new(void)
{
	return calloc(1, sizeof(pk_script_filter));
}

int pk_script_filter_add(pk_script_filter *f, pk_script_filter_kind kind, const char *arg,
			 pk_error *err)
{
	int rc;
	switch (kind) {
	case PK_SF_COMMS: rc = split(arg, &f->comms, &f->nr_comms); break;
	case PK_SF_SYMS: rc = split(arg, &f->syms, &f->nr_syms); break;
	case PK_SF_DSOS: rc = split(arg, &f->dsos, &f->nr_dsos); break;
	case PK_SF_PIDS: rc = parse_ids("--pid", arg, &f->pids, &f->nr_pids, err); break;
	case PK_SF_TIDS: rc = parse_ids("--tid", arg, &f->tids, &f->nr_tids, err); break;
	case PK_SF_TIME: rc = parse_range(f, arg, err); break;
	case PK_SF_CPUS: rc = parse_cpus(f, arg, err); break;
	default: return pk_err(err, -EINVAL, "unknown filter kind %d", (int)kind);
	}
	return rc == -ENOMEM ? pk_err(err, -ENOMEM, "out of memory") : rc;
}

static bool has_word(char *const *list, size_t n, const char *s, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(list[i]) == len && !memcmp(list[i], s, len))
			return true;
	return false;
}

static bool has_id(const long *ids, size_t n, long id)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

/* The sample's symbol and dso against syms and dsos. */
static bool keep_location(const pk_script_filter *f, pk_session *s, const pk_pd_event *ev,
			  const pk_pd_sample *smp)
{
	unsigned mode = ev->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	const pk_addr_loc *loc = pk_machine_lookup(pk_session_machine(s), smp->pid, mode, smp->ip);
	if (f->nr_syms && (!loc->sym || !has_word(f->syms, f->nr_syms, loc->sym, loc->sym_len)))
		return false;
	if (f->nr_dsos) {
		if (!has_word(f->dsos, f->nr_dsos, loc->dso, loc->dso_len) &&
		    !has_word(f->dsos, f->nr_dsos, loc->dso_short, strlen(loc->dso_short)))
			return false;
	}
	return true;
}

bool pk_script_filter_keep(const pk_script_filter *f, pk_session *s, const pk_pd_event *ev,
			   const pk_pd_sample *smp)
{
	if (f->nr_pids && !has_id(f->pids, f->nr_pids, (long)smp->pid))
		return false;
	if (f->nr_tids && !has_id(f->tids, f->nr_tids, (long)smp->tid))
		return false;
	if (f->has_time && pk_time_windows_skip(f->tw, f->nr_tw, smp->time))
		return false;
	if (f->nr_cpus) {
		size_t i = 0;
		while (i < f->nr_cpus && f->cpus[i] != (int)smp->cpu)
			i++;
		if (i == f->nr_cpus)
			return false;
	}
	if (f->nr_comms) {
		const char *comm = pk_machine_comm(pk_session_machine(s), smp->pid, smp->tid);
		if (!comm || !has_word(f->comms, f->nr_comms, comm, strlen(comm)))
			return false;
	}
	return (!f->nr_syms && !f->nr_dsos) || keep_location(f, s, ev, smp);
}

void pk_script_filter_free(pk_script_filter *f)
{
	if (!f)
		return;
	char **lists[3] = {f->comms, f->syms, f->dsos};
	size_t nrs[3] = {f->nr_comms, f->nr_syms, f->nr_dsos};
	for (int l = 0; l < 3; l++) {
		for (size_t i = 0; i < nrs[l]; i++)
			free(lists[l][i]);
		free(lists[l]);
	}
	free(f->pids);
	free(f->tids);
	free(f->tw);
	free(f->time_pct);
	free(f->cpus);
	free(f);
}
