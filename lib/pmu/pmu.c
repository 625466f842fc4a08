/* pmu: placeholder, being written */
#include <errno.h>
#include <stddef.h>
#include <pmukit/pmu.h>
pk_pmus *pk_pmus_load(const char *root, pk_error *err)
{
	(void)root;
	pk_err(err, -ENOSYS, "not implemented yet");
	return NULL;
}
void pk_pmus_put(pk_pmus *pmus) { (void)pmus; }
