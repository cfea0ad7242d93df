/* include/xray/xray_budget.h: thin doors on the controller (budget.c),
 * which the control socket's `budget` command uses too. */
#include "budget/budget.h"

#include "core/base/runtime_state.h"
#include "xray/xray_budget.h"

#include <string.h>

XR_API int __xray_budget_set(double percent) {
  if (!(percent >= 0 && percent <= 100)) /* NaN fails both */
    return XRAY_BUDGET_INVALID;
  if (!xr_runtime_initialized())
    return XRAY_BUDGET_NOT_INITIALIZED;
  return xr_budget_set(percent);
}

XR_API int __xray_budget_keep(const char *patterns) {
  if (patterns == NULL)
    patterns = "";
  if (strlen(patterns) >= XR_BUDGET_KEEP_MAX)
    return XRAY_BUDGET_INVALID;
  xr_budget_set_keep(patterns);
  return XRAY_BUDGET_OK;
}

XR_API int __xray_budget_status(struct XRayBudgetStatus *out) {
  if (out == NULL)
    return XRAY_BUDGET_INVALID;
  xr_budget_get_status(out);
  return XRAY_BUDGET_OK;
}
