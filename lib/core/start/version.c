/* __xray_runtime_version(): the version this archive was built as, from
 * project(... VERSION) in the top-level CMakeLists.txt through the generated
 * <xray/xray_version.h> (template: include/xray/xray_version.h.in), so a
 * program can tell the archive it runs from the headers it was compiled
 * with. */
#include "core/base/common.h"
#include "xray/xray_version.h"

XR_API const char *__xray_runtime_version(void) { return XRAY_RUNTIME_VERSION; }
