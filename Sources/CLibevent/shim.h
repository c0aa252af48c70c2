// CLibevent: the parts of libevent 2.1 that BreakwaterServer calls (the event loop: bases,
// events, timers, thread support; HTTP is Breakwater's own engine), plus static inline
// wrappers for what Swift cannot import (macros, GNU-only declarations).
#ifndef BREAKWATER_CLIBEVENT_SHIM_H
#define BREAKWATER_CLIBEVENT_SHIM_H

#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <signal.h>

#include <event2/event.h>
#include <event2/thread.h>
#include <event2/util.h>

// evsignal_new is a macro over event_new.
static inline struct event *CLibevent_signal_new(struct event_base *base, int signum,
                                                 event_callback_fn cb, void *arg) {
    return event_new(base, signum, EV_SIGNAL | EV_PERSIST, cb, arg);
}

// evtimer_new is a macro over event_new.
static inline struct event *CLibevent_timer_new(struct event_base *base, event_callback_fn cb, void *arg) {
    return event_new(base, -1, 0, cb, arg);
}

// accept4 is a GNU extension the Glibc module may hide; declared here so that an accepted
// socket is non-blocking and close-on-exec in one system call.
extern int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);
static inline int CLibevent_accept_nonblocking(int fd, struct sockaddr *address, socklen_t *length) {
    return accept4(fd, address, length, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

// Event flags as the short libevent's functions take (they import as Int32 macros).
static inline short CLibevent_read_persist(void) { return EV_READ | EV_PERSIST; }
static inline short CLibevent_write_persist(void) { return EV_WRITE | EV_PERSIST; }
static inline short CLibevent_closed_persist(void) { return EV_CLOSED | EV_PERSIST; }

#endif
