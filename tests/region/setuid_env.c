/* A program that embeds libpmukit, for setuid_env.sh (issue 26): made
 * setuid-root by that script and run by an unprivileged user with every
 * variable the library reads set, it prints what the library took from
 * the environment, one fact a line:
 *
 *   secure <0|1>             getauxval(AT_SECURE): the process is privileged
 *   env <NAME> <set|unset>   pki_env of each NAME given as an argument
 *   sysfs <root>             pk_sysfs_root()
 *   tracefs <dir>            pk_tracefs_dir(NULL) ("-" when none)
 *   cpuid_overridden <0|1>   pk_cpuid_overridden()
 *   kcache <path|none>       the kallsyms cache the library would write
 *   machine <root>           where the model's machine "sapphirerapids" is
 *   modeled <0|1>            the region library counted on the PMU model
 *
 * after a region begun and ended; then pk_region_fini, which writes the
 * report when the library was told to. Exits 0 whatever it printed: the
 * script judges. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/auxv.h>

#include <pmukit/cpuid.h>
#include <pmukit/pmu.h>
#include <pmukit/region.h>
#include <pmukit/tracepoint.h>

#include "core/util.h"
#include "model/mkernel.h"
#include "symbols/sy_internal.h"

int main(int argc, char **argv)
{
	printf("secure %d\n", getauxval(AT_SECURE) ? 1 : 0);
	for (int i = 1; i < argc; i++)
		printf("env %s %s\n", argv[i], pki_env(argv[i]) ? "set" : "unset");
	printf("sysfs %s\n", pk_sysfs_root());
	const char *tr = pk_tracefs_dir(NULL);
	printf("tracefs %s\n", tr ? tr : "-");
	printf("cpuid_overridden %d\n", pk_cpuid_overridden());
	pk_machine_opts mo = {0};
	char *kc = pki_sy_kcache_path(&mo);
	printf("kcache %s\n", kc ? kc : "none");
	free(kc);
	char root[4096];
	printf("machine %s\n", pki_machine_root("sapphirerapids", root, sizeof(root), NULL) == 0
				       ? root
				       : "-");
	pk_region_begin("solve");
	pk_region_end("solve");
	pk_region_info in;
	pk_region_get_info(&in);
	printf("modeled %d\n", in.modeled);
	fflush(stdout);
	pk_region_fini();
	return 0;
}
