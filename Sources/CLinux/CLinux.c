#define _GNU_SOURCE 1  // struct ucred
#include "CLinux.h"
#include <pthread.h>
#include <stddef.h>
#include <string.h>

int clinux_peer_credentials(int fd, pid_t *pid, uid_t *uid, gid_t *gid) {
    struct ucred cred;
    socklen_t len = sizeof(cred);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return -1;
    if (pid) *pid = cred.pid;
    if (uid) *uid = cred.uid;
    if (gid) *gid = cred.gid;
    return 0;
}

int clinux_signalfd_for(const int *signals, int count) {
    sigset_t set;
    sigemptyset(&set);
    for (int i = 0; i < count; i++) sigaddset(&set, signals[i]);
    if (pthread_sigmask(SIG_BLOCK, &set, NULL) != 0) return -1;
    return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

int clinux_signalfd_read(int fd) {
    struct signalfd_siginfo info;
    ssize_t n;
    do { n = read(fd, &info, sizeof(info)); } while (n < 0 && errno == EINTR);
    if (n < 0) return errno == EAGAIN ? 0 : -1;
    if (n != sizeof(info)) { errno = EIO; return -1; }
    return (int)info.ssi_signo;
}

int clinux_timerfd_create(void) {
    return timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
}

int clinux_timerfd_set(int fd, int64_t initial_ns, int64_t interval_ns) {
    struct itimerspec spec;
    memset(&spec, 0, sizeof(spec));
    // A zero it_value disarms the timer, so a requested "fire now" becomes 1 ns.
    if (initial_ns == 0 && interval_ns > 0) initial_ns = 1;
    spec.it_value.tv_sec = initial_ns / 1000000000LL;
    spec.it_value.tv_nsec = initial_ns % 1000000000LL;
    spec.it_interval.tv_sec = interval_ns / 1000000000LL;
    spec.it_interval.tv_nsec = interval_ns % 1000000000LL;
    return timerfd_settime(fd, 0, &spec, NULL);
}

// Reads the 8-byte counter of a non-blocking timerfd or eventfd (which resets it): 0 when it
// is not readable (EAGAIN), -1 with errno on error.
static int64_t read_counter(int fd) {
    uint64_t count = 0;
    ssize_t n;
    do { n = read(fd, &count, sizeof(count)); } while (n < 0 && errno == EINTR);
    if (n < 0) return errno == EAGAIN ? 0 : -1;
    return (int64_t)count;
}

int64_t clinux_timerfd_read(int fd) { return read_counter(fd); }

int64_t clinux_monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int64_t clinux_realtime_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int clinux_sockaddr_un(struct sockaddr_un *addr, const char *path) {
    size_t len = strlen(path);
    memset(addr, 0, sizeof(*addr));
    addr->sun_family = AF_UNIX;
    if (len >= sizeof(addr->sun_path)) { errno = ENAMETOOLONG; return -1; }
    memcpy(addr->sun_path, path, len);
    return (int)(offsetof(struct sockaddr_un, sun_path) + len + 1);
}

int clinux_accept(int listen_fd) {
    return accept4(listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

int clinux_errno(void) { return errno; }

#include <sys/eventfd.h>

int clinux_eventfd_create(void) {
    return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}

int clinux_eventfd_signal(int fd) {
    uint64_t one = 1;
    ssize_t n;
    do { n = write(fd, &one, sizeof(one)); } while (n < 0 && errno == EINTR);
    // EAGAIN: the count is at its maximum, so the descriptor is readable anyway.
    return (n == sizeof(one) || (n < 0 && errno == EAGAIN)) ? 0 : -1;
}

int64_t clinux_eventfd_drain(int fd) { return read_counter(fd); }

int clinux_thread_set_name(const char *name) {
    char cut[16];
    strncpy(cut, name, sizeof(cut) - 1);
    cut[sizeof(cut) - 1] = 0;
    return pthread_setname_np(pthread_self(), cut);
}

int clinux_gettid(void) { return (int)gettid(); }

#include <sys/syscall.h>
#include <sys/wait.h>

int clinux_connect_as(const char *path, uid_t uid, gid_t gid) {
    struct sockaddr_un addr;
    int len = clinux_sockaddr_un(&addr, path);
    if (len < 0) return -1;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return -1;
    pid_t child = fork();
    if (child < 0) { int e = errno; close(sv[0]); close(sv[1]); errno = e; return -1; }
    if (child == 0) {
        close(sv[0]);
        if (syscall(SYS_setgroups, 0, NULL) != 0) _exit(10);
        if (syscall(SYS_setresgid, gid, gid, gid) != 0) _exit(11);
        if (syscall(SYS_setresuid, uid, uid, uid) != 0) _exit(12);
        int fd = (int)syscall(SYS_socket, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) _exit(13);
        if (syscall(SYS_connect, fd, (struct sockaddr *)&addr, (socklen_t)len) != 0) _exit(14);
        char byte = 0;
        struct iovec iov = { &byte, 1 };
        union { struct cmsghdr align; char buf[CMSG_SPACE(sizeof(int))]; } control;
        memset(&control, 0, sizeof(control));
        struct msghdr msg;
        memset(&msg, 0, sizeof(msg));
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.buf;
        msg.msg_controllen = sizeof(control.buf);
        struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &fd, sizeof(int));
        if (syscall(SYS_sendmsg, sv[1], &msg, 0) != 1) _exit(15);
        _exit(0);
    }
    close(sv[1]);
    char byte = 0;
    struct iovec iov = { &byte, 1 };
    union { struct cmsghdr align; char buf[CMSG_SPACE(sizeof(int))]; } control;
    struct msghdr msg;
    memset(&msg, 0, sizeof(msg));
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.buf;
    msg.msg_controllen = sizeof(control.buf);
    ssize_t n;
    do { n = recvmsg(sv[0], &msg, MSG_CMSG_CLOEXEC); } while (n < 0 && errno == EINTR);
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
    close(sv[0]);
    struct cmsghdr *c = n == 1 ? CMSG_FIRSTHDR(&msg) : NULL;
    if (c == NULL || c->cmsg_type != SCM_RIGHTS) {
        errno = (WIFEXITED(status) && WEXITSTATUS(status) == 14) ? ECONNREFUSED : EPERM;
        return -1;
    }
    int fd;
    memcpy(&fd, CMSG_DATA(c), sizeof(int));
    return fd;
}
