/* The "tma" object of a scenario phase: TopDown shares of all slots.
 *
 * Level 1 (retiring, bad_speculation, frontend_bound, backend_bound) is
 * required and sums to 1 within PKI_TMA_TOLERANCE. Level 2 is optional, per
 * parent: the child PERF_METRICS holds (heavy_operations, branch_mispredicts,
 * fetch_latency, memory_bound) and/or its complement (light_operations,
 * machine_clears, fetch_bandwidth, core_bound). A child is never above its
 * parent (within the tolerance); when both are given they add up to it.
 * When neither is given the parent splits in half (docs/model.md). Every
 * share is a number in [0, 1]. The result is in PERF_METRICS byte order.
 * Any other key naming a node below Level 2 of an Intel method's tree
 * (lib/topdown's tables: "l2_bound", "dram_bound", ...) is kept in the
 * phase's deep list, for the deeper events (events_tree.c), as a share of
 * what the node's formula measures (Intel's Level 3 memory nodes are shares
 * of cycles, not of their parent's slots, so no sum over children is
 * checked). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "core/util.h"
#include "model/model.h"
#include "topdown/td_internal.h"

static const struct tma_key {
	const char *key;
	int node;        /* enum pki_tma_node */
	bool complement; /* the Level 2 sibling PERF_METRICS does not hold */
} keys[] = {
	{"retiring", PKI_TMA_RETIRING, false},
	{"bad_speculation", PKI_TMA_BAD_SPEC, false},
	{"frontend_bound", PKI_TMA_FE_BOUND, false},
	{"backend_bound", PKI_TMA_BE_BOUND, false},
	{"heavy_operations", PKI_TMA_HEAVY_OPS, false},
	{"branch_mispredicts", PKI_TMA_BR_MISPREDICT, false},
	{"fetch_latency", PKI_TMA_FETCH_LAT, false},
	{"memory_bound", PKI_TMA_MEM_BOUND, false},
	{"light_operations", PKI_TMA_HEAVY_OPS, true},
	{"machine_clears", PKI_TMA_BR_MISPREDICT, true},
	{"fetch_bandwidth", PKI_TMA_FETCH_LAT, true},
	{"core_bound", PKI_TMA_MEM_BOUND, true},
};

static const struct tma_key *find_key(const char *k)
{
	for (size_t i = 0; i < PK_ARRAY_SIZE(keys); i++)
		if (!strcmp(keys[i].key, k))
			return &keys[i];
	return NULL;
}

/* The row of an Intel tree below Level 2 named tma_<key>, or NULL. */
static const pk_metric_def *deep_row(const char *key)
{
	char name[128];
	snprintf(name, sizeof(name), "tma_%s", key);
	for (size_t t = 0; t < PKI_TD_INTEL_NR; t++) {
		long r = pki_td_find_row(&pki_td_intel[t], name);
		if (r >= 0 && pki_td_row_level(&pki_td_intel[t].rows[r]) >= 3)
			return &pki_td_intel[t].rows[r];
	}
	return NULL;
}

static int add_deep(pki_phase *ph, const pk_metric_def *row, double v, pk_error *err)
{
	pki_tma_deep *d = realloc(ph->deep, (ph->nr_deep + 1) * sizeof(*d));
	if (!d)
		return pk_err(err, -ENOMEM, "out of memory");
	ph->deep = d;
	ph->deep[ph->nr_deep++] = (pki_tma_deep){.name = row->name, .share = v};
	return 0;
}

/* Reads every key into given[] (NAN when absent); [0..7] the nodes,
 * [8..11] the complements; deeper nodes into ph. */
static int read_shares(const json_t *obj, const char *path, const char *where, pki_phase *ph,
		       double given[PKI_TMA_NR + 4], pk_error *err)
{
	for (int i = 0; i < PKI_TMA_NR + 4; i++)
		given[i] = NAN;
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)obj, k, v) {
		char sub[PKI_PATH_MAX];
		pki_json_path(sub, sizeof(sub), path, k, -1);
		const struct tma_key *tk = find_key(k);
		const pk_metric_def *deep = tk ? NULL : deep_row(k);
		if (!tk && !deep)
			return pki_scenario_bad(err, where, sub, v,
						"unknown TopDown node (Level 1: retiring, "
						"bad_speculation, frontend_bound, backend_bound; "
						"Levels 3-6: a node of Intel's trees without tma_, "
						"docs/topdown.md)");
		if (!json_is_number(v) || json_number_value(v) < 0 || json_number_value(v) > 1)
			return pki_scenario_bad(err, where, sub, v, "a share is a number in [0, 1]");
		if (deep) {
			int rc = add_deep(ph, deep, json_number_value(v), err);
			if (rc < 0)
				return rc;
			continue;
		}
		given[tk->node + (tk->complement ? 4 : 0)] = json_number_value(v);
	}
	return 0;
}

static int level1(const double given[], const char *path, const char *where, double tma[],
		  pk_error *err)
{
	double sum = 0;
	for (int i = 0; i < PKI_TMA_L1_NR; i++) {
		if (isnan(given[i])) {
			char sub[PKI_PATH_MAX];
			pki_json_path(sub, sizeof(sub), path, keys[i].key, -1);
			return pk_err_at(err, -EINVAL, "scenario", where, -1,
					 "%s: missing (Level 1 is required)", sub);
		}
		tma[i] = given[i];
		sum += given[i];
	}
	if (fabs(sum - 1) > PKI_TMA_TOLERANCE)
		return pk_err_at(err, -EINVAL, "scenario", where, -1,
				 "%s: Level 1 sums to %.9g, not 1 (tolerance %g)", path, sum,
				 PKI_TMA_TOLERANCE);
	return 0;
}

static int child_error(pk_error *err, const char *where, const char *path, int key, double v,
		       const char *why, double parent)
{
	int up = key < PKI_TMA_NR ? key - PKI_TMA_L1_NR : key - PKI_TMA_NR; /* the parent's key */
	return pk_err_at(err, -EINVAL, "scenario", where, -1, "%s.%s: %.9g: %s %s (%.9g)", path,
			 keys[key].key, v, why, keys[up].key, parent);
}

/* Level 2 node n (4..7) from its value and its complement's. */
static int level2(const double given[], int n, const char *path, const char *where, double tma[],
		  pk_error *err)
{
	double parent = tma[n - 4], child = given[n], comp = given[n + 4];
	if (!isnan(child) && child > parent + PKI_TMA_TOLERANCE)
		return child_error(err, where, path, n, child, "above its parent", parent);
	if (!isnan(comp) && comp > parent + PKI_TMA_TOLERANCE)
		return child_error(err, where, path, n + 4, comp, "above its parent", parent);
	if (!isnan(child) && !isnan(comp) && fabs(child + comp - parent) > PKI_TMA_TOLERANCE)
		return child_error(err, where, path, n + 4, comp,
				   "plus its sibling does not add up to its parent", parent);
	double v = !isnan(child) ? child : !isnan(comp) ? parent - comp : parent / 2;
	tma[n] = v < 0 ? 0 : v > parent ? parent : v;
	return 0;
}

int pki_scenario_tma(const json_t *obj, const char *path, const char *where, pki_phase *ph,
		     pk_error *err)
{
	if (!json_is_object(obj))
		return pki_scenario_bad(err, where, path, obj, "expected an object of shares");
	double given[PKI_TMA_NR + 4], *tma = ph->tma;
	int rc = read_shares(obj, path, where, ph, given, err);
	if (!rc)
		rc = level1(given, path, where, tma, err);
	for (int n = PKI_TMA_L1_NR; !rc && n < PKI_TMA_NR; n++)
		rc = level2(given, n, path, where, tma, err);
	return rc;
}
