/* Intel's perfmon metric files for the metrics tests (perfmon_json.h). */
#include "helpers.h"
#include "perfmon_json.h"

#include <stdlib.h>
#include <string.h>

json_t *pk_perfmon_array(const char *rel, const char *key)
{
	json_error_t je;
	json_t *j = json_load_file(pk_test_fixture(rel), 0, &je);
	if (!j)
		fail_msg("%s: %s", rel, je.text);
	json_t *m = json_object_get(j, key);
	assert_true(json_is_array(m));
	json_incref(m);
	json_decref(j);
	return m;
}

json_t *pk_perfmon_metrics(const char *rel)
{
	return pk_perfmon_array(rel, "Metrics");
}

bool pk_perfmon_in_group(json_t *m, const char *group)
{
	const char *g = json_string_value(json_object_get(m, "MetricGroup"));
	size_t n = strlen(group);
	for (const char *p = g; p && (p = strstr(p, group)); p += n)
		if ((p == g || p[-1] == ';') && (p[n] == ';' || !p[n]))
			return true;
	return false;
}

char *pk_perfmon_perf_style(json_t *m, const char *formula)
{
	size_t cap = strlen(formula) * 40 + 64, o = 0;
	char *out = malloc(cap);
	assert_non_null(out);
	json_t *evs = json_object_get(m, "Events");
	for (const char *p = formula; *p;) {
		size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyz_");
		const char *name = NULL;
		size_t i;
		json_t *e;
		json_array_foreach(evs, i, e) {
			const char *alias = json_string_value(json_object_get(e, "Alias"));
			if (n && alias && strlen(alias) == n && !strncmp(alias, p, n))
				name = json_string_value(json_object_get(e, "Name"));
		}
		if (!name || (p > formula && (p[-1] == '_' || p[-1] == '.'))) {
			size_t k = n ? n : 1;
			memcpy(out + o, p, k);
			o += k;
			p += k;
			continue;
		}
		for (const char *q = name; *q; q++) {
			if (*q == '-')
				out[o++] = '\\';
			out[o++] = *q;
		}
		p += n;
	}
	out[o] = '\0';
	return out;
}
