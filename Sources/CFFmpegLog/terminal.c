#include <sys/ioctl.h>
#include <unistd.h>
#include "CFFmpegLog.h"

int cff_terminal_columns(int fd) {
    struct winsize ws;
    if (ioctl(fd, TIOCGWINSZ, &ws) != 0) return 0;
    return ws.ws_col;
}
