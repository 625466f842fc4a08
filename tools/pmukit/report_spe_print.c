/* pmukit report: the Arm SPE latency views printed (`--spe-latency`: the
 * table of pk_spe_hist's groups (include/pmukit/hist.h) and the total latency histogram
 * as text; `--plot FILE.svg`: the histogram as an SVG chart, plot_svg.c). */
#include "report_spe_print.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "plot_svg.h"

static void print_histogram(const pk_spe_hist *rs, FILE *out)
{
	unsigned w;
	size_t nb = pk_spe_hist_bins(rs, &w);
	fprintf(out, "\n# Total latency histogram (cycles): bin, records\n");
	for (size_t b = 0; b < nb; b++)
		fprintf(out, "%6u-%-6u %10" PRIu64 "\n", (unsigned)b * w, (unsigned)(b + 1) * w - 1,
			pk_spe_hist_bin(rs, b, w));
}

void report_spe_print(pk_spe_hist *rs, FILE *out)
{
	size_t n;
	pk_spe_hist_entry **all = pk_spe_hist_sorted(rs, &n);
	if (!all)
		return;
	fprintf(out, "# Arm SPE records by symbol: %" PRIu64 " records; latencies in cycles, "
		     "p50/p90/p99\n#\n", pk_spe_hist_nr_records(rs));
	fprintf(out, "#  Records   Total latency   Issue latency    Xlat latency  Symbol  "
		     "Shared Object  Data sources (loads, stores)\n");
	for (size_t i = 0; i < n; i++) {
		pk_spe_hist_row r;
		pk_spe_hist_row_of(all[i], &r);
		fprintf(out, "%10zu", r.nr);
		for (int f = 0; f < 3; f++)
			fprintf(out, "  %4u/%4u/%4u", r.lat[f][0], r.lat[f][1], r.lat[f][2]);
		fprintf(out, "  %.*s  %s%s%s\n", r.sym_len, r.sym, r.dso, *r.sources ? "  " : "",
			r.sources);
	}
	print_histogram(rs, out);
	free(all);
}

int report_spe_plot(pk_spe_hist *rs, const char *path, pk_error *err)
{
	unsigned w;
	size_t nb = pk_spe_hist_bins(rs, &w);
	double *edges = calloc(nb + 1, sizeof(double)), *counts = calloc(nb, sizeof(double));
	if (!edges || !counts) {
		free(edges);
		free(counts);
		return pk_err(err, -ENOMEM, "out of memory");
	}
	for (size_t b = 0; b <= nb; b++)
		edges[b] = (double)(b * w);
	for (size_t b = 0; b < nb; b++)
		counts[b] = (double)pk_spe_hist_bin(rs, b, w);
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
