/* libFuzzer target: perf stat record's records in a perf.data (STAT,
 * STAT_ROUND, STAT_CONFIG, THREAD_MAP, CPU_MAP) through the parsers and
 * the stat file's reading (pk_pd_stat_data: readings placed by id, CPU
 * and thread, rows per round), as `pmukit stat report` and `script` take
 * them. Invariant checked by the sanitizers: no read outside a record, no
 * leak, whatever the maps and counts say. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <pmukit/perfdata.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pk_pd_reader *r;
	pk_pd_open_opts o = {.no_order = true, .chunk_size = 4096};
	if (pk_pd_reader_open_mem(data, size, &o, &r, NULL) < 0)
		return 0;
	pk_pd_stat_data *d = pk_pd_stat_data_new(r);
	pk_pd_event ev;
	int n = 0;
	while (d && pk_pd_next(r, &ev, NULL) > 0 && n++ < 100000) {
		pk_pd_rec_stat_round round;
		pk_error err;
		pk_cpumap *m = ev.type == PK_RECORD_CPU_MAP ? pk_pd_rec_cpu_map(&ev) : NULL;
		pk_cpumap_put(m);
		if (pk_pd_stat_data_add(d, &ev, &round, &err) != 1)
			continue;
		for (int aggr = PK_AGGR_GLOBAL; aggr <= PK_AGGR_THREAD; aggr++) {
			pk_stat_rows rows = {0};
			pk_pd_stat_data_rows(d, (pk_aggr_mode)aggr, &rows);
			pk_stat_rows_free(&rows);
		}
	}
	pk_pd_stat_data_free(d);
	pk_pd_reader_close(r);
	return 0;
}
