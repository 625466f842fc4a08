/* pmukit report: the Arm SPE latency views printed (`--spe-latency`: the
 * table of lib/hist/report_spe.c's groups and the total latency histogram
 * as text; `--plot FILE.svg`: the histogram as an SVG chart, plot_svg.c). */
#include "report_spe.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "plot_svg.h"

static void print_histogram(const report_spe *rs, FILE *out)
{
	unsigned w;
	size_t nb = report_spe_bins(rs, &w);
	fprintf(out, "\n# Total latency histogram (cycles): bin, records\n");
	for (size_t b = 0; b < nb; b++)
		fprintf(out, "%6u-%-6u %10" PRIu64 "\n", (unsigned)b * w, (unsigned)(b + 1) * w - 1,
			report_spe_bin(rs, b, w));
}

void report_spe_print(report_spe *rs, FILE *out)
{
	size_t n;
	rs_entry **all = report_spe_sorted(rs, &n);
	if (!all)
		return;
	fprintf(out, "# Arm SPE records by symbol: %" PRIu64 " records; latencies in cycles, "
		     "p50/p90/p99\n#\n", report_spe_nr_records(rs));
	fprintf(out, "#  Records   Total latency   Issue latency    Xlat latency  Symbol  "
		     "Shared Object  Data sources (loads, stores)\n");
	for (size_t i = 0; i < n; i++) {
		report_spe_row r;
		report_spe_row_of(all[i], &r);
		fprintf(out, "%10zu", r.nr);
		for (int f = 0; f < 3; f++)
			fprintf(out, "  %4u/%4u/%4u", r.lat[f][0], r.lat[f][1], r.lat[f][2]);
		fprintf(out, "  %.*s  %s%s%s\n", r.sym_len, r.sym, r.dso, *r.sources ? "  " : "",
			r.sources);
	}
	print_histogram(rs, out);
	free(all);
}

int report_spe_plot(report_spe *rs, const char *path, pk_error *err)
{
	unsigned w;
	size_t nb = report_spe_bins(rs, &w);
	double *edges = calloc(nb + 1, sizeof(double)), *counts = calloc(nb, sizeof(double));
	if (!edges || !counts) {
		free(edges);
		free(counts);
		return pk_err(err, -ENOMEM, "out of memory");
	}
	for (size_t b = 0; b <= nb; b++)
		edges[b] = (double)(b * w);
	for (size_t b = 0; b < nb; b++)
		counts[b] = (double)report_spe_bin(rs, b, w);
	plot_histogram h = {"Arm SPE total latency", "total latency (cycles)", "records",
			    "all records", "#4e79a7", edges, counts, nb, true, false};
	FILE *f = fopen(path, "w");
	int rc = f ? plot_histogram_svg(f, &h, err) : pk_err(err, -errno, "cannot write %s", path);
	if (f && fclose(f) && !rc)
		rc = pk_err(err, -EIO, "cannot write %s", path);
	free(edges);
	free(counts);
	return rc;
}
