/* A scenario phase's optional "spe" object (the PMU model's SPE unit,
 * docs/model.md "The SPE unit"): what the operations Arm SPE samples in the
 * phase are. Strict like the rest of the scenario: unknown keys, wrong
 * types, out-of-range values are errors naming the JSON path and value.
 *
 * Invariants after a successful parse: the shares of loads, stores and
 * branches are in [0, 1] and sum to at most 1 (within PKI_TMA_TOLERANCE;
 * the rest is "other"); when loads > 0 the load sources sum to 1 (within
 * the tolerance) and every source with a share has a latency; every kind
 * with a share has what its packets need (data_addr for loads and stores,
 * branch_target for branches, a latency per kind). Nothing is defaulted
 * except mispredicts (0) and the physical address (absent: the model's
 * driver refuses pa_enable naming the key). */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "model/model.h"

const char *const pki_spe_src_names[PKI_SPE_SRC_NR] = {
	"L1D", "L2D", "PEER-CPU", "LOCAL-CLUSTER", "LL-CACHE", "PEER-CLUSTER", "REMOTE", "DRAM",
};
/* The common data-source encoding of Neoverse N1/N2/V1/V2 (spe.md 1.7). */
const uint8_t pki_spe_src_codes[PKI_SPE_SRC_NR] = {0x0, 0x8, 0x9, 0xa, 0xb, 0xc, 0xd, 0xe};
const char *const pki_spe_op_names[PKI_SPE_OP_NR] = {"loads", "stores", "branches", "other"};

/* Keys of the latency object: the sources, then one per kind but loads. */
static const char *const lat_kinds[] = {"store", "branch", "other"};

/* An optional number in [lo, hi] (*out untouched when absent). */
static int opt_number(const json_t *o, const char *key, double lo, double hi, const char *path,
		      const char *where, double *out, pk_error *err)
{
	json_t *v = json_object_get(o, key);
	if (!v)
		return 0;
	char sub[PKI_PATH_MAX], why[64];
	pki_json_path(sub, sizeof(sub), path, key, -1);
	double d = json_is_number(v) ? json_number_value(v) : NAN;
	if (isnan(d) || d < lo || d > hi) {
		snprintf(why, sizeof(why), "expected a number in [%g, %g]", lo, hi);
		return pki_scenario_bad(err, where, sub, v, why);
	}
	*out = d;
	return 0;
}

/* An address ("0x..."); *given false when absent. */
static int opt_addr(const json_t *o, const char *key, const char *path, const char *where,
		    uint64_t *out, bool *given, pk_error *err)
{
	json_t *v = json_object_get(o, key);
	*given = v != NULL;
	if (!v)
		return 0;
	char sub[PKI_PATH_MAX];
	pki_json_path(sub, sizeof(sub), path, key, -1);
	const char *s = json_is_string(v) ? json_string_value(v) : NULL;
	if (!s || strncmp(s, "0x", 2) || pki_parse_u64(s, out, NULL) < 0)
		return pki_scenario_bad(err, where, sub, v, "expected a hex address such as "
							    "\"0x7f0000001000\"");
	return 0;
}

static int need(const char *path, const char *key, const char *why, const char *where,
		pk_error *err)
{
	char sub[PKI_PATH_MAX];
	pki_json_path(sub, sizeof(sub), path, key, -1);
	return pk_err_at(err, -EINVAL, "scenario", where, -1, "%s: missing: %s", sub, why);
}

/* "load_sources": shares of the loads per source, summing to 1. */
static int parse_sources(const json_t *o, const char *path, const char *where, pki_spe_phase *p,
			 pk_error *err)
{
	char sub[PKI_PATH_MAX];
	pki_json_path(sub, sizeof(sub), path, "load_sources", -1);
	if (!json_is_object(o))
		return pki_scenario_bad(err, where, sub, o, "expected an object");
	const char *known[PKI_SPE_SRC_NR + 1] = {NULL};
	memcpy(known, pki_spe_src_names, sizeof(pki_spe_src_names));
	int rc = pki_scenario_keys(o, known, sub, where, err);
	double sum = 0;
	for (int i = 0; i < PKI_SPE_SRC_NR && !rc; i++) {
		rc = opt_number(o, pki_spe_src_names[i], 0, 1, sub, where, &p->source[i], err);
		sum += p->source[i];
	}
	if (!rc && fabs(sum - 1) > PKI_TMA_TOLERANCE)
		rc = pki_scenario_bad(err, where, sub, o, "the sources' shares of the loads sum "
							  "to 1");
	return rc;
}

/* "latency": cycles per load source and per kind, integers in [0, 65535]. */
static int parse_latency(const json_t *o, const char *path, const char *where,
			 pki_spe_phase *p, pk_error *err)
{
	const char *known[PKI_SPE_SRC_NR + 4] = {NULL};
	char sub[PKI_PATH_MAX];
	pki_json_path(sub, sizeof(sub), path, "latency", -1);
	if (!json_is_object(o))
		return pki_scenario_bad(err, where, sub, o, "expected an object");
	for (int i = 0; i < PKI_SPE_SRC_NR; i++)
		known[i] = pki_spe_src_names[i];
	for (int i = 0; i < 3; i++)
		known[PKI_SPE_SRC_NR + i] = lat_kinds[i];
	int rc = pki_scenario_keys(o, known, sub, where, err);
	for (size_t i = 0; i < PKI_SPE_SRC_NR + 3 && !rc; i++) {
		double d = -1;
		json_t *v = json_object_get(o, known[i]);
		rc = opt_number(o, known[i], 0, 65535, sub, where, &d, err);
		if (!rc && v && d != floor(d)) {
			char k[PKI_PATH_MAX];
			pki_json_path(k, sizeof(k), sub, known[i], -1);
			rc = pki_scenario_bad(err, where, k, v, "expected whole cycles");
		}
		if (d < 0)
			continue;
		if (i < PKI_SPE_SRC_NR)
			p->src_latency[i] = (unsigned)d;
		else
			p->op_latency[PKI_SPE_STORE + (i - PKI_SPE_SRC_NR)] = (unsigned)d;
	}
	return rc;
}

/* What each kind with a share needs is there. */
static int check_complete(const json_t *o, const char *path, const char *where,
			  const pki_spe_phase *p, pk_error *err)
{
	const json_t *lat = json_object_get(o, "latency");
	bool mem = p->share[PKI_SPE_LOAD] > 0 || p->share[PKI_SPE_STORE] > 0;
	if (p->share[PKI_SPE_LOAD] > 0 && !json_object_get(o, "load_sources"))
		return need(path, "load_sources", "loads have a share, so their sources are needed "
				  "(e.g. {\"L1D\": 0.9, \"DRAM\": 0.1})", where, err);
	if (mem && !json_object_get(o, "data_addr"))
		return need(path, "data_addr", "loads or stores have a share", where, err);
	if (p->share[PKI_SPE_BRANCH] > 0 && !json_object_get(o, "branch_target"))
		return need(path, "branch_target", "branches have a share", where, err);
	char sub[PKI_PATH_MAX], what[64];
	pki_json_path(sub, sizeof(sub), path, "latency", -1);
	for (int i = 0; i < PKI_SPE_SRC_NR && p->share[PKI_SPE_LOAD] > 0; i++)
		if (p->source[i] > 0 && !(lat && json_object_get(lat, pki_spe_src_names[i]))) {
			snprintf(what, sizeof(what), "loads from %s have a share", pki_spe_src_names[i]);
			return need(sub, pki_spe_src_names[i], what, where, err);
		}
	for (int k = PKI_SPE_STORE; k < PKI_SPE_OP_NR; k++)
		if (p->share[k] > 0 && !(lat && json_object_get(lat, lat_kinds[k - 1]))) {
			snprintf(what, sizeof(what), "%s have a share", pki_spe_op_names[k]);
			return need(sub, lat_kinds[k - 1], what, where, err);
		}
	return 0;
}

int pki_scenario_spe(const json_t *o, const char *path, const char *where, pki_spe_phase *p,
		     pk_error *err)
{
	static const char *const known[] = {"loads", "stores", "branches", "load_sources",
					     "latency", "mispredicts", "data_addr",
					     "data_phys_addr", "branch_target", NULL};
	memset(p, 0, sizeof(*p));
	if (!json_is_object(o))
		return pki_scenario_bad(err, where, path, o, "expected an object");
	int rc = pki_scenario_keys(o, known, path, where, err);
	double sum = 0;
	for (int k = PKI_SPE_LOAD; k <= PKI_SPE_BRANCH && !rc; k++) {
		rc = opt_number(o, pki_spe_op_names[k], 0, 1, path, where, &p->share[k], err);
		sum += p->share[k];
	}
	if (!rc && sum > 1 + PKI_TMA_TOLERANCE)
		rc = pki_scenario_bad(err, where, path, o, "loads + stores + branches exceed 1");
	p->share[PKI_SPE_OTHER] = sum < 1 ? 1 - sum : 0;
	if (!rc)
		rc = opt_number(o, "mispredicts", 0, 1, path, where, &p->mispredicts, err);
	if (!rc && json_object_get(o, "load_sources"))
		rc = parse_sources(json_object_get(o, "load_sources"), path, where, p, err);
	if (!rc && json_object_get(o, "latency"))
		rc = parse_latency(json_object_get(o, "latency"), path, where, p, err);
	bool given;
	if (!rc)
		rc = opt_addr(o, "data_addr", path, where, &p->data_addr, &given, err);
	if (!rc)
		rc = opt_addr(o, "data_phys_addr", path, where, &p->data_phys_addr,
			      &p->data_phys_given, err);
	if (!rc)
		rc = opt_addr(o, "branch_target", path, where, &p->branch_target, &given, err);
	if (!rc)
		rc = check_complete(o, path, where, p, err);
	p->given = rc == 0;
	return rc;
}
