/* Named test points: a unit test compiles a runtime file again with
 * XR_TEST_POINTS and sets the point's hook (a function pointer) to run what
 * a signal handler would run there; in the library a point is nothing.
 * XR_TEST_POINT(hook, (args)) calls hook(args) when the hook is set. */
#ifndef XR_TEST_POINTS_H
#define XR_TEST_POINTS_H

#ifdef XR_TEST_POINTS
#define XR_TEST_POINT(hook, args)                                              \
  do {                                                                         \
    if (hook)                                                                  \
      hook args;                                                               \
  } while (0)
#else
#define XR_TEST_POINT(hook, args) ((void)0)
#endif

#endif
