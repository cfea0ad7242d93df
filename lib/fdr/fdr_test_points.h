/* Named test points: the unit tests compile an FDR file again with
 * XR_FDR_TEST_POINTS to run a signal handler's events at the point (hook is
 * a function pointer the test sets); in the library a point is nothing. */
#ifndef XR_FDR_TEST_POINTS_H
#define XR_FDR_TEST_POINTS_H

#ifdef XR_FDR_TEST_POINTS
#define XR_FDR_TEST_POINT(hook)                                                \
  do {                                                                         \
    if (hook)                                                                  \
      hook();                                                                  \
  } while (0)
#else
#define XR_FDR_TEST_POINT(hook) ((void)0)
#endif

#endif
