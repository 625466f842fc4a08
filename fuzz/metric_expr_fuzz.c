/* Fuzz target: the metric expression parser (lib/metrics/expr.c), then what
 * callers do next: evaluate with every reference 0, 1 and NaN, render the
 * error of a refused formula, and compile the text as a metric row (formula
 * and threshold) and evaluate it through the engine with no counts. The
 * seeds are Intel perfmon Formula strings and perf-style MetricExpr. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include <pmukit/metrics.h>

static void eval_all(const pk_expr *e)
{
	static const double fill[] = {0, 1, NAN};
	size_t n = pk_expr_nr_refs(e);
	double *vals = malloc((n ? n : 1) * sizeof(*vals));
	if (!vals)
		return;
	for (size_t f = 0; f < sizeof(fill) / sizeof(fill[0]); f++) {
		for (size_t i = 0; i < n; i++) {
			const char *ref = pk_expr_ref(e, i);
			if (!ref || pk_expr_ref_pos(e, i) < 0)
				abort(); /* every reference is named and placed */
			vals[i] = fill[f] + (double)i;
		}
		volatile double v = pk_expr_eval(e, vals);
		(void)v;
	}
	free(vals);
}

static void through_engine(const char *text)
{
	pk_metric_def def = {.name = "fuzz", .trigger = "*", .formula = text, .threshold = text};
	pk_error err;
	pk_metric_table *t = pk_metric_table_new(&def, 1, &err);
	if (!t)
		return;
	pk_metric_literal lit = {"#smt_on", 1};
	pk_metric_counts in = {.lit = &lit, .nr_lit = 1};
	pk_metric_value mv;
	pk_metric_eval(t, 0, &in, -1, &mv);
	pk_metric_table_free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size, 8192);
	if (!s)
		return 0;
	pk_error err;
	pk_error_clear(&err);
	pk_expr *e = pk_expr_parse(s, &err);
	if (e) {
		if (strcmp(pk_expr_text(e), s) != 0)
			abort();
		eval_all(e);
		pk_expr_free(e);
		through_engine(s);
	} else {
		if (err.code >= 0 || err.pos < 0 || (size_t)err.pos > strlen(s))
			abort(); /* a refusal always says where */
		char buf[4096];
		pk_error_render(&err, buf, sizeof(buf));
	}
	free(s);
	return 0;
}
