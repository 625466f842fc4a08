/* Where the bundled machines' sysfs trees are (issue 8): a scenario names a
 * machine ("sapphirerapids"); its tree (a folder holding
 * bus/event_source/devices) is looked up, in order, under
 *   $PMUKIT_MACHINES/<name>          (an override, when set and not empty),
 *   <source>/tests/data/sysfs/<name> (an uninstalled build: the tree it was
 *                                     built from),
 *   <datadir>/pmukit/machines/<name> (where meson installs them).
 * The two built-in folders come from meson (model_paths.h). A machine found
 * nowhere is -ENOENT naming every folder looked in. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/mkernel.h"
#include "model/model_paths.h"
#include "core/util.h"

static bool is_tree(const char *dir)
{
	char p[PATH_MAX + 64];
	snprintf(p, sizeof(p), "%s/bus/event_source/devices", dir);
	return access(p, R_OK | X_OK) == 0;
}

int pki_machine_root(const char *name, char *buf, size_t len, pk_error *err)
{
	const char *env = pki_env("PMUKIT_MACHINES");
	const char *dirs[] = {env && *env ? env : NULL, PK_MACHINES_SOURCE_DIR,
			      PK_MACHINES_INSTALL_DIR};
	char tried[1024] = "";
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		if (!dirs[i])
			continue;
		int n = snprintf(buf, len, "%s/%s", dirs[i], name);
		if (n > 0 && (size_t)n < len && is_tree(buf))
			return 0;
		size_t used = strlen(tried);
		snprintf(tried + used, sizeof(tried) - used, "%s%s/%s", used ? ", " : "", dirs[i],
			 name);
	}
	buf[0] = '\0';
	return pk_err(err, -ENOENT, "machine '%s': no sysfs tree (bus/event_source/devices) in %s "
				    "(set PMUKIT_MACHINES to the folder holding the machines)",
		      name, tried);
}
