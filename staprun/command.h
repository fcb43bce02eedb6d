/*
 * command.h - -c CMD's exec, shared by staprun (the module runtime) and
 * stapbpf (the BPF runtime's loader), so target() is the same process.
 */
#ifndef STAPRUN_COMMAND_H
#define STAPRUN_COMMAND_H

/* exec cmd as 4.8 does; returns (with a message) only when it cannot */
void exec_command(const char *cmd);

#endif
