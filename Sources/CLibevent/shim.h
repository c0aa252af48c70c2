// CLibevent: the parts of libevent 2.1 that BreakwaterServer calls, plus static inline
// wrappers for what Swift cannot import (TAILQ macros over evkeyvalq, flag macros).
#ifndef BREAKWATER_CLIBEVENT_SHIM_H
#define BREAKWATER_CLIBEVENT_SHIM_H

#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <signal.h>

#include <event2/event.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/listener.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <event2/thread.h>
#include <event2/util.h>

// TAILQ_FIRST over evkeyvalq is a macro: header iteration goes through these two.
static inline struct evkeyval *CLibevent_keyvalq_first(struct evkeyvalq *q) { return q->tqh_first; }
// TAILQ_NEXT is a macro.
static inline struct evkeyval *CLibevent_keyval_next(struct evkeyval *kv) { return kv->next.tqe_next; }

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

#endif
