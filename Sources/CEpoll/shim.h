// The one C header for epoll(7), which the Glibc module does not bring in: Linux only. Only
// Sources/SpotterServer/System/FileDescriptor.swift imports CEpoll, and only on Linux.
#include <sys/epoll.h>
