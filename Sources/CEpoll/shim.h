// The Linux headers the Glibc module does not bring in: epoll(7), and naming a thread
// (prctl(2), variadic, so behind a function Swift can call). Linux only: imported only by
// Sources/SpotterServer/System, and only on Linux.
#include <sys/epoll.h>
#include <sys/prctl.h>

/// Names the calling thread, as top -H and /proc/PID/task/TID/comm show it (15 bytes at most).
static inline int spotter_name_this_thread(const char *name) {
  return prctl(PR_SET_NAME, (unsigned long)name, 0UL, 0UL, 0UL);
}
