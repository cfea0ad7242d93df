/* `xrayctl report TRACE`: a table of the functions of a basic or FDR log
 * or a profile (docs/control.md "Reading files"). */
#ifndef XRAYCTL_TRACE_REPORT_H
#define XRAYCTL_TRACE_REPORT_H

/* argv: what follows "report". Returns the exit status: 0, 1 a bad file,
 * 2 a usage error. */
int ctl_cmd_report(int argc, char **argv);

#endif
