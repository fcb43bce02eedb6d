#!/bin/sh
# The workload the sched scripts watch (staprun -c): a fork and exec of
# sleep, a SIGWINCH it ignores, a wait, a SIGUSR2 the shell handles. No
# signal here is fatal: 4.8's signal.handle fails on the SIGKILL that
# follows a fatal signal (its siginfo is NULL).
sleep 0.1 &
kill -WINCH $!
wait
trap 'echo got USR2' USR2
kill -USR2 $$
