/* Signals through a self-pipe: a handler installed with sigaction writes the signal's number to a pipe, which the
   CLI reads on a dispatch queue. Unlike a dispatch signal source (SIG_IGN plus a signalfd on Linux), a signal is
   never lost: a process-directed signal goes to any thread that does not block it, and there it runs this handler,
   where with SIG_IGN it would have been discarded (seen as a batch that ignored SIGINT while it waited). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include "include/CFFmpegLog.h"

static int cff_signal_fds[2] = {-1, -1};

static void cff_signal_handler(int sig) {
    int saved = errno;
    unsigned char byte = (unsigned char)sig;
    ssize_t ignored = write(cff_signal_fds[1], &byte, 1);  /* async-signal-safe; a full pipe drops a repeat */
    (void)ignored;
    errno = saved;
}

int cff_signal_pipe_install(const int *signals, int count) {
    if (cff_signal_fds[0] < 0 && pipe2(cff_signal_fds, O_CLOEXEC | O_NONBLOCK) != 0) return -1;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = cff_signal_handler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigset_t unblock;
    sigemptyset(&unblock);
    for (int i = 0; i < count; i++) {
        if (sigaction(signals[i], &action, NULL) != 0) return -1;
        sigaddset(&unblock, signals[i]);
    }
    pthread_sigmask(SIG_UNBLOCK, &unblock, NULL);
    return cff_signal_fds[0];
}
