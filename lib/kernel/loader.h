/* Inside the library: kernels loaded from a file, for code that takes its
 * kernel from the environment (the region library's PMUKIT_MODEL) without
 * depending on the module that implements it.
 *
 * lib/model registers the PMU model's loader when it is linked (a
 * constructor in lib/model/mmodel.c; static programs get it through the
 * link option -u pki_model_loader that pmukit_dep adds); lib/kernel knows
 * no implementation. One loader at a time; registering is done before main
 * and never changes afterwards, so reading it needs no lock. */
#ifndef PK_KERNEL_LOADER_H
#define PK_KERNEL_LOADER_H

#include <pmukit/kernel.h>

typedef struct pki_kernel_loader {
	const char *what;          /* "PMU model scenario", for errors */
	/* A kernel made from the file at path, the caller's until unload;
	 * NULL with err. */
	const pk_kernel *(*load)(const char *path, pk_error *err);
	void (*unload)(const pk_kernel *k);
} pki_kernel_loader;

void pki_kernel_loader_set(const pki_kernel_loader *l);
/* The registered loader's kernel from path; NULL with -ENOTSUP in err when
 * none is linked in. */
const pk_kernel *pki_kernel_load(const char *path, pk_error *err);
/* Frees a kernel pki_kernel_load made (NULL: nothing). */
void pki_kernel_unload(const pk_kernel *k);

#endif
