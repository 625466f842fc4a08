/* Symbols: an internal call of the pmukit CLI's call chain printing, not
 * exported. pki_machine_frame names where a user-space address lies (its
 * dso and the offset in it) without the symbol lookup: what
 * pk_machine_lookup answers for such an address depends on nothing else,
 * so a text made of that answer can be kept under (dso, offset) and
 * shared by every process that maps the same file (short-lived processes
 * each have their own maps version, pk_machine_maps_version).
 * pki_machine_locate is pk_machine_lookup without its cache. */
#ifndef PK_SYMBOLS_FAST_H
#define PK_SYMBOLS_FAST_H

#include <pmukit/symbols.h>

/* The dso (an identity, valid while m lives) of the map of pid that holds
 * addr, with *off the address inside it (pk_addr_loc.dso_addr), for a
 * user-space cpumode; NULL for kernel modes and addresses in no map. Two
 * equal answers mean equal pk_machine_lookup answers (but for has_map's
 * map_size, which no text uses). */
const void *pki_machine_frame(pk_machine *m, uint32_t pid, unsigned cpumode, uint64_t addr,
			      uint64_t *off);

/* The same for a whole map: the dso, and the map's [start, end) and file
 * offset (an address's offset is addr - start + pgoff); for an address in
 * no map (NULL returned, fm->dso NULL), [start, end) is the room around it
 * that no map holds. The answer stays true for every address of the range
 * while the process's maps version (pk_machine_maps_version) stays the
 * same: a caller may keep it (for a user-space cpumode). */
typedef struct pki_frame_map {
	const void *dso;
	uint64_t start, end, pgoff;
} pki_frame_map;
const void *pki_machine_frame_map(pk_machine *m, uint32_t pid, unsigned cpumode,
				  uint64_t addr, pki_frame_map *fm);

/* pk_machine_lookup's answer for addr, into *loc, without its cache: for a
 * caller that keeps what it makes of the answer itself (script's line
 * cache), where the lookup cache would mostly miss and only take room in
 * the CPU caches. */
void pki_machine_locate(pk_machine *m, uint32_t pid, unsigned cpumode, uint64_t addr,
			pk_addr_loc *loc);

#endif
