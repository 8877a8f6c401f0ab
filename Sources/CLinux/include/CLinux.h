// Linux interfaces that Glibc's Swift overlay does not expose (or exposes awkwardly):
// epoll, signalfd, timerfd, SO_PEERCRED and a few macros that Swift cannot import.
#ifndef CLINUX_H
#define CLINUX_H

// No _GNU_SOURCE here: the header is parsed into a Clang module next to SwiftGlibc, and a
// different feature-macro state makes the two disagree on struct layouts such as fd_set
// ("'__fds_bits' is not present in definition of 'fd_set'"). CLinux.c defines it for itself.
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/types.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/// Peer credentials of a connected Unix socket (SO_PEERCRED). Returns 0 or -1 with errno set.
int clinux_peer_credentials(int fd, pid_t *pid, uid_t *uid, gid_t *gid);

/// Blocks `signals[0..<count]` in the calling thread (and threads it later starts) and returns a
/// non-blocking, close-on-exec signalfd for them, or -1 with errno set.
int clinux_signalfd_for(const int *signals, int count);

/// Reads one `struct signalfd_siginfo` and returns its signal number, 0 when none is pending,
/// or -1 with errno set.
int clinux_signalfd_read(int fd);

/// Creates a non-blocking, close-on-exec CLOCK_MONOTONIC timerfd, or -1 with errno set.
int clinux_timerfd_create(void);

/// Arms `fd` to fire after `initial_ns` and then every `interval_ns` (0: once); both 0 disarms.
int clinux_timerfd_set(int fd, int64_t initial_ns, int64_t interval_ns);

/// Reads a timerfd's expiration count; 0 when it has not fired (EAGAIN), -1 with errno on error.
int64_t clinux_timerfd_read(int fd);

/// CLOCK_MONOTONIC now, in nanoseconds.
int64_t clinux_monotonic_ns(void);

/// CLOCK_REALTIME now, in nanoseconds since the Unix epoch.
int64_t clinux_realtime_ns(void);

/// Copies `path` into `addr->sun_path`; returns the socklen to pass to bind/connect, or -1
/// (errno ENAMETOOLONG) when it does not fit.
int clinux_sockaddr_un(struct sockaddr_un *addr, const char *path);

/// Accepts one connection on a listening socket as a non-blocking, close-on-exec descriptor
/// (`accept4`, a GNU extension that Glibc's overlay does not expose), or -1 with errno set.
int clinux_accept(int listen_fd);

/// The `errno` of the calling thread (a macro in C).
int clinux_errno(void);

/// Creates a non-blocking, close-on-exec eventfd with count 0, or -1 with errno set.
int clinux_eventfd_create(void);

/// Adds 1 to an eventfd's count (it becomes readable). Returns 0 or -1 with errno set.
int clinux_eventfd_signal(int fd);

/// Reads and resets an eventfd's count; 0 when it was not signalled (EAGAIN), -1 with errno.
int64_t clinux_eventfd_drain(int fd);

/// Names the calling thread as `ps -L`, `top -H` and /proc/PID/task/TID/comm show it
/// (`pthread_setname_np`; at most 15 bytes, longer names are cut). Returns 0 or an errno.
int clinux_thread_set_name(const char *name);

/// The calling thread's kernel id (`gettid`), as in /proc/PID/task/TID.
int clinux_gettid(void);

/// Test helper for control authorisation: connects to the Unix socket `path` from a forked
/// child running as `uid`/`gid` with no supplementary groups (what `setpriv --reuid --regid
/// --clear-groups` does) and hands the connected socket back to the caller over SCM_RIGHTS, so
/// the server's SO_PEERCRED names `uid`/`gid`. The child makes raw syscalls only (safe after
/// fork in a threaded process). Returns the blocking, close-on-exec socket, or -1 with errno.
int clinux_connect_as(const char *path, uid_t uid, gid_t gid);

#endif
