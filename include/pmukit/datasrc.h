/* pmukit: the memory data source of a sample (PERF_SAMPLE_DATA_SRC,
 * union perf_mem_data_src), decoded to text the way perf 6.1 prints it.
 *
 * The value packs: mem_op (bits 0-4), mem_lvl (5-18), mem_snoop (19-23),
 * mem_lock (24-25), mem_dtlb (26-32), mem_lvl_num (33-36), mem_remote (37),
 * mem_snoopx (38-39), mem_blk (40-42), mem_hops (43-45). Each part renders
 * alone (for report columns) or all together as perf script shows them. */
#ifndef PMUKIT_DATASRC_H
#define PMUKIT_DATASRC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pk_data_src_part {
	PK_DATA_SRC_OP,              /* "LOAD", "STORE", "N/A", "No" ... */
	PK_DATA_SRC_LVL,             /* "L1 hit", "Remote RAM (1 hop) miss", "N/A" ... */
	PK_DATA_SRC_SNOOP,           /* "None", "Hit or HitM", "N/A" ... */
	PK_DATA_SRC_TLB,             /* "L1 or L2 hit", "Walker miss", "N/A" ... */
	PK_DATA_SRC_LOCK,            /* "Yes", "No", "N/A" */
	PK_DATA_SRC_BLK,             /* " N/A", " Data", " Data Addr" (perf's leading space) */
} pk_data_src_part;

/* Writes one part as text into buf (at most size - 1 characters and a NUL,
 * like snprintf) and returns the length of the whole text. */
size_t pk_data_src_part_format(uint64_t data_src, pk_data_src_part part, char *buf, size_t size);

/* All parts as perf script prints them after the value:
 * "|OP LOAD|LVL L1 hit|SNP None|TLB L1 or L2 hit|LCK No|BLK  N/A".
 * snprintf conventions, as above. */
size_t pk_data_src_format(uint64_t data_src, char *buf, size_t size);

/* The longest text pk_data_src_format can produce, NUL included. */
#define PK_DATA_SRC_TEXT_MAX 512

#ifdef __cplusplus
}
#endif
#endif
