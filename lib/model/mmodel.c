/* The PMU model object (issue 8): pk_model_new loads a scenario and its
 * machine (sysfs tree, CPU set, mux interval), pk_model_advance runs virtual
 * time; plus the placement rules the kernel files share: which phase a
 * thread runs at a time, on which core PMU and CPU (docs/model.md
 * "Hybrid"). Single owner: pk_model_new -> pk_model_free. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/util.h"
#include "kernel/loader.h"
#include "model/mkernel.h"
#include "model/mspe.h"
#include "perfdata/sample_write.h"

const pk_pmu *pki_mk_pmu_of(const pk_model *m, pki_core_type ct)
{
	if (!pk_pmus_is_hybrid(m->pmus))
		return pk_pmus_core_at(m->pmus, 0);
	return pk_pmus_find(m->pmus, ct == PKI_CORE_ATOM ? "cpu_atom" : "cpu_core");
}

const pk_pmu *pki_mk_pmu_on_cpu(const pk_model *m, int cpu)
{
	for (size_t i = 0; i < pk_pmus_nr_core(m->pmus); i++) {
		const pk_pmu *p = pk_pmus_core_at(m->pmus, i);
		if (!p->cpus || pk_cpumap_has(p->cpus, cpu))
			return p;
	}
	return NULL;
}

/* The thread's `cpu` while its phase's core type is that CPU's, else the
 * first CPU of the phase's core type (the scheduler, mthreads.c, prefers
 * an idle one of that type when the thread moves). */
int pki_mk_cpu_of(const pk_model *m, size_t t, const pki_phase *ph)
{
	int cpu = m->sc.threads[t].cpu;
	const pk_pmu *p = pki_mk_pmu_of(m, ph->core_type);
	if (!p || !p->cpus || pk_cpumap_has(p->cpus, cpu))
		return cpu;
	return pk_cpumap_cpu(p->cpus, 0);
}

/* The machine's CPUs: the core PMUs' cpus, or, when no core PMU lists them
 * (a machine without hybrid PMUs), 0 .. the highest thread CPU (rounded up
 * to a whole core with SMT). */
static int machine_cpus(pk_model *m, pk_error *err)
{
	int v[4096], n = 0, top = 0;
	for (size_t i = 0; i < pk_pmus_nr_core(m->pmus); i++) {
		const pk_pmu *p = pk_pmus_core_at(m->pmus, i);
		for (int j = 0; p->cpus && j < pk_cpumap_nr(p->cpus) && n < 4096; j++)
			v[n++] = pk_cpumap_cpu(p->cpus, j);
	}
	if (n == 0) {
		for (size_t t = 0; t < m->sc.nr_threads; t++)
			top = m->sc.threads[t].cpu > top ? m->sc.threads[t].cpu : top;
		if (m->sc.smt && top % 2 == 0)
			top++;
		for (n = 0; n <= top; n++)
			v[n] = n;
	}
	m->cpus = pk_cpumap_from_array(v, n);
	if (!m->cpus)
		return pk_err(err, -ENOMEM, "out of memory");
	for (size_t t = 0; t < m->sc.nr_threads; t++) {
		char list[256];
		if (pk_cpumap_has(m->cpus, m->sc.threads[t].cpu))
			continue;
		pk_cpumap_format(m->cpus, list, sizeof(list));
		return pk_err_at(err, -EINVAL, "scenario", m->scenario_path, -1,
				 "threads[%zu].cpu: %d: not a CPU of machine '%s' (CPUs %s)", t,
				 m->sc.threads[t].cpu, m->sc.machine, list);
	}
	return 0;
}

/* perf_event_mux_interval_ms of the first core PMU, else the default. */
static uint64_t mux_interval_ns(const pk_model *m)
{
	char path[PATH_MAX + 128];
	long ms = 0;
	snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s/perf_event_mux_interval_ms",
		 m->root, pk_pmus_core_at(m->pmus, 0)->name);
	FILE *f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%ld", &ms) != 1)
			ms = 0;
		fclose(f);
	}
	return (uint64_t)(ms > 0 ? ms : MK_MUX_DEFAULT_MS) * 1000000u;
}

/* True when root holds the folder bus/event_source/devices. */
static bool is_machine_tree(const char *root)
{
	char path[PATH_MAX + 32];
	struct stat st;
	snprintf(path, sizeof(path), "%s/bus/event_source/devices", root);
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int load_machine(pk_model *m, pk_error *err)
{
	int r = 0;
	const char *slash = strrchr(m->scenario_path, '/');
	if (m->sc.machine_is_path && m->sc.machine[0] != '/' && slash)
		snprintf(m->root, sizeof(m->root), "%.*s/%s", (int)(slash - m->scenario_path),
			 m->scenario_path, m->sc.machine); /* relative to the scenario */
	else if (m->sc.machine_is_path)
		snprintf(m->root, sizeof(m->root), "%s", m->sc.machine);
	else
		r = pki_machine_root(m->sc.machine, m->root, sizeof(m->root), err);
	if (r < 0)
		return r;
	if (m->sc.machine_is_path && !is_machine_tree(m->root))
		return pk_err_at(err, -EINVAL, "scenario", m->scenario_path, -1,
				 "machine: \"%s\": not a machine's sysfs tree (no folder "
				 "bus/event_source/devices in %s)",
				 m->sc.machine, m->root);
	m->pmus = pk_pmus_load(m->root, err);
	if (!m->pmus)
		return err && err->code ? err->code : -ENOMEM;
	if (pk_pmus_nr_core(m->pmus) == 0)
		return pk_err(err, -ENOENT, "machine '%s': no core PMU in %s/bus/event_source/devices",
			      m->sc.machine, m->root);
	return machine_cpus(m, err);
}

/* When each thread ends: the scheduler run ahead on its own (no events),
 * change by change; the time it takes grows with phases and context
 * switches. */
static int thread_ends(pk_model *m, uint64_t quantum)
{
	mk_sched s;
	uint64_t now = 0;
	int r = pki_sched_init(m, &s, quantum);
	while (r == 0 && s.nr_alive) {
		uint64_t t = pki_sched_next(&s, now);
		pki_sched_advance(m, &s, now, t);
		s.nr_dirty = 0;
		for (size_t i = 0; i < s.nr_th; i++)
			s.th[i].dirty = false;
		now = t;
	}
	for (size_t t = 0; r == 0 && t < m->sc.nr_threads; t++) {
		m->thread_end[t] = s.th[t].end;
		m->end = s.th[t].end > m->end ? s.th[t].end : m->end;
	}
	pki_sched_free(&s);
	return r;
}

static int init_time(pk_model *m)
{
	size_t nctx = pki_mk_nr_ctx(m);
	uint64_t quantum = (uint64_t)llround((m->sc.quantum_ms > 0 ? m->sc.quantum_ms
								    : MK_QUANTUM_MS) * 1e6);
	m->thread_end = calloc(m->sc.nr_threads, sizeof(*m->thread_end));
	m->rot = calloc(nctx, sizeof(*m->rot));
	m->want_rot = calloc(nctx, sizeof(*m->want_rot));
	m->cev = calloc(nctx, sizeof(*m->cev));
	m->rec = malloc(PKI_PD_RECORD_MAX + 1);
	if (!m->thread_end || !m->rot || !m->want_rot || !m->cev || !m->rec)
		return -ENOMEM;
	if (thread_ends(m, quantum) < 0 || pki_sched_init(m, &m->sched, quantum) < 0)
		return -ENOMEM;
	m->sched.nr_dirty = 0; /* nothing is open yet */
	for (size_t t = 0; t < m->sc.nr_threads; t++)
		m->sched.th[t].dirty = false;
	for (size_t t = 0; t < m->sc.nr_threads; t++)
		for (size_t i = 0; i < m->sc.threads[t].nr_phases; i++) {
			const pki_phase *ph = &m->sc.threads[t].phases[i];
			if (!m->rates_ph[ph->rates_given])
				m->rates_ph[ph->rates_given] = ph;
		}
	m->mux_ns = mux_interval_ns(m);
	m->tick_ns = 1000000000u / MK_HZ;
	return 0;
}

pk_model *pk_model_new(const char *scenario_path, pk_error *err)
{
	pk_model *m = calloc(1, sizeof(*m));
	if (!m) {
		pk_err(err, -ENOMEM, "out of memory");
		return NULL;
	}
	snprintf(m->scenario_path, sizeof(m->scenario_path), "%s", scenario_path);
	int r = pki_scenario_load(scenario_path, &m->sc, err);
	if (r == 0)
		r = load_machine(m, err);
	if (r == 0 && init_time(m) < 0)
		r = pk_err(err, -ENOMEM, "out of memory");
	if (r < 0) {
		pk_model_free(m);
		return NULL;
	}
	pki_mk_ops(&m->ops);
	m->k.ops = &m->ops;
	m->k.ctx = m;
	m->k.name = "model";
	return m;
}

void pk_model_free(pk_model *m)
{
	if (!m)
		return;
	for (size_t c = 0; m->cev && c < pki_mk_nr_ctx(m); c++)
		free(m->cev[c].idx);
	free(m->cev);
	pki_scenario_release(&m->sc);
	pk_pmus_put(m->pmus);
	pk_cpumap_put(m->cpus);
	free(m->thread_end);
	free(m->rot);
	free(m->want_rot);
	free(m->rec);
	pki_sched_free(&m->sched);
	for (size_t i = 0; i < m->nr_ev; i++)
		free(m->ev[i].map), pki_mk_spe_free(&m->ev[i]);
	free(m->ev);
	free(m);
}

const pk_kernel *pk_model_kernel(pk_model *m)
{
	return &m->k;
}

const char *pk_model_sysfs_root(const pk_model *m)
{
	return m->root;
}

const char *pk_model_machine(const pk_model *m)
{
	return m->sc.machine;
}

const char *pk_model_scenario(const pk_model *m)
{
	return m->scenario_path;
}

const pk_cpuid *pk_model_cpuid(const pk_model *m)
{
	return &m->sc.cpuid;
}

uint64_t pk_model_now(const pk_model *m)
{
	return m->now;
}

uint64_t pk_model_end(const pk_model *m)
{
	return m->end;
}

uint64_t pk_model_mux_ns(const pk_model *m)
{
	return m->mux_ns;
}

bool pk_model_advance(pk_model *m, uint64_t ns)
{
	pki_mk_run_to(m, m->now + ns, false);
	return m->sched.nr_alive > 0;
}

/* The model as the kernel loader (kernel/loader.h): a scenario file in, its
 * kernel out, for the region library's PMUKIT_MODEL. */
static const pk_kernel *load_kernel(const char *path, pk_error *err)
{
	pk_model *m = pk_model_new(path, err);
	return m ? pk_model_kernel(m) : NULL;
}

static void unload_kernel(const pk_kernel *k)
{
	pk_model_free(MK(k));
}

/* Global so that a static link can pull this file in (-u pki_model_loader). */
const pki_kernel_loader pki_model_loader = {"PMU model scenario", load_kernel, unload_kernel};

__attribute__((constructor)) static void register_loader(void)
{
	pki_kernel_loader_set(&pki_model_loader);
}

const char *pk_model_label(const pk_model *m, char *buf, size_t len)
{
	snprintf(buf, len, "scenario '%s' on machine '%s'", m->scenario_path, m->sc.machine);
	return buf;
}

char *pk_model_recorded(const pk_pd_header *h)
{
	if (!h->hostname || !h->osrelease || strcmp(h->hostname, PK_MODEL_NODENAME) ||
	    strcmp(h->osrelease, PK_MODEL_RELEASE))
		return NULL;
	return strdup(h->cpudesc ? h->cpudesc : "the PMU model");
}
