/* <xray/xray_budget.h> in strict C11 and in C++11 to 20: its types with and
 * without their tags, its functions with prototypes, its statuses. */
#include <xray/xray_budget.h>

#ifdef __cplusplus
#define XR_CHECK(c) static_assert(c, #c)
#else
#define XR_CHECK(c) _Static_assert(c, #c)
#endif

XR_CHECK(XRAY_BUDGET_OK == 0 && XRAY_BUDGET_NOT_INITIALIZED == -1 &&
         XRAY_BUDGET_INVALID == -2 && XRAY_BUDGET_NO_THREAD == -3);

int main(void) {
  struct XRayBudgetStatus a;
  XRayBudgetStatus b;
  enum XRayBudgetResult r = XRAY_BUDGET_OK;
  XRayBudgetResult r2 = XRAY_BUDGET_INVALID;
  int (*set)(double) = __xray_budget_set;
  int (*keep)(const char *) = __xray_budget_keep;
  int (*get)(struct XRayBudgetStatus *) = __xray_budget_status;
  (void)set, (void)keep;
  int ok = get(&a) == XRAY_BUDGET_OK && get(&b) == XRAY_BUDGET_OK && r == 0 && r2 == -2;
  ok = ok && a.percent == 0 && a.running == 0 && __xray_budget_set(-1) == XRAY_BUDGET_INVALID;
  return ok ? 0 : 1;
}
