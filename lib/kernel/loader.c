/* The registered kernel loader (loader.h): one pointer, set by the
 * implementation's constructor, read by whoever loads a kernel from a
 * file. */
#include "kernel/loader.h"

#include <errno.h>

static const pki_kernel_loader *loader;

void pki_kernel_loader_set(const pki_kernel_loader *l)
{
	loader = l;
}

const pk_kernel *pki_kernel_load(const char *path, pk_error *err)
{
	if (!loader) {
		pk_err(err, -ENOTSUP, "%s: no simulated kernel in this program (the PMU model is "
				      "not linked in)", path);
		return NULL;
	}
	return loader->load(path, err);
}

void pki_kernel_unload(const pk_kernel *k)
{
	if (k && loader)
		loader->unload(k);
}
