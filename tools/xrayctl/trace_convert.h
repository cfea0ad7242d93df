/* `xrayctl convert TRACE --to FORMAT -o OUT`: the runtime's readable views
 * of a basic or FDR log or a profile, written from the file by the
 * runtime's own writers (docs/control.md "Reading files"). */
#ifndef XRAYCTL_TRACE_CONVERT_H
#define XRAYCTL_TRACE_CONVERT_H

/* argv: what follows "convert". Returns the exit status: 0, 1 a bad file
 * or a failed write, 2 a usage error. */
int ctl_cmd_convert(int argc, char **argv);

#endif
