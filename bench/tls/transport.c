/* TLS transport comparison (`make bench-tls`, bench/tls/run.sh): the same tiny
 * HTTP/1.1 server on libevent's event loop, with TLS done two ways, so that the transport's own
 * cost is measured apart from everything else:
 *   direct       OpenSSL on the non-blocking socket (SSL_read/SSL_write; what Breakwater does)
 *   bufferevent  libevent's bufferevent_openssl
 * Every request (keep-alive, pipelining allowed) gets the same fixed answer of BODY_BYTES.
 * Not part of Breakwater: a measuring tool only. */
#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BODY_BYTES 905

static SSL_CTX *ctx;
static struct event_base *base;
static char answer[512 + BODY_BYTES];
static size_t answer_len;

/* Complete request heads in buf[0..len): returns how many, and sets *used to the bytes they span. */
static int count_requests(const char *buf, size_t len, size_t *used) {
    int n = 0;
    size_t start = 0;
    for (size_t i = 3; i < len; i++) {
        if (buf[i] == '\n' && buf[i - 1] == '\r' && buf[i - 2] == '\n' && buf[i - 3] == '\r' && i >= start + 3) {
            n++;
            start = i + 1;
        }
    }
    *used = start;
    return n;
}

/* --- direct: OpenSSL on the socket ------------------------------------------------------- */

struct direct {
    int fd;
    SSL *ssl;
    struct event *read_event;
    char in[16384];
    size_t in_len;
};

static void direct_close(struct direct *c) {
    event_free(c->read_event);
    SSL_free(c->ssl);
    close(c->fd);
    free(c);
}

static void direct_readable(evutil_socket_t fd, short what, void *arg) {
    (void)fd;
    (void)what;
    struct direct *c = arg;
    char out[16 * sizeof(answer)];
    size_t out_len = 0;
    for (;;) {
        int room = (int)(sizeof(c->in) - c->in_len);
        int n = SSL_read(c->ssl, c->in + c->in_len, room);
        if (n <= 0) {
            int e = SSL_get_error(c->ssl, n);
            if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) break;
            direct_close(c);
            return;
        }
        c->in_len += (size_t)n;
        size_t used;
        int requests = count_requests(c->in, c->in_len, &used);
        memmove(c->in, c->in + used, c->in_len - used);
        c->in_len -= used;
        for (int i = 0; i < requests && out_len + answer_len <= sizeof(out); i++) {
            memcpy(out + out_len, answer, answer_len);
            out_len += answer_len;
        }
        if (c->in_len == sizeof(c->in)) {
            direct_close(c);
            return;
        }
        /* Less than asked and nothing decrypted left: the socket is most likely empty, and
         * another SSL_read would only cost a read() that says EAGAIN (as Breakwater's engine). */
        if (n < room && SSL_pending(c->ssl) == 0) break;
    }
    if (out_len > 0) {
        /* Loopback with small answers: the socket takes them (a real server would queue). */
        int n = SSL_write(c->ssl, out, (int)out_len);
        if (n <= 0) direct_close(c);
    }
}

static void direct_accept(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *a, int len, void *arg) {
    (void)l;
    (void)a;
    (void)len;
    (void)arg;
    struct direct *c = calloc(1, sizeof(*c));
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    c->fd = fd;
    c->ssl = SSL_new(ctx);
    SSL_set_fd(c->ssl, fd);
    SSL_set_accept_state(c->ssl);
    c->read_event = event_new(base, fd, EV_READ | EV_PERSIST, direct_readable, c);
    event_add(c->read_event, NULL);
}

/* --- bufferevent_openssl -------------------------------------------------------------------- */

static void bev_read(struct bufferevent *bev, void *arg) {
    (void)arg;
    struct evbuffer *in = bufferevent_get_input(bev);
    struct evbuffer *out = bufferevent_get_output(bev);
    for (;;) {
        struct evbuffer_ptr end = evbuffer_search(in, "\r\n\r\n", 4, NULL);
        if (end.pos < 0) break;
        evbuffer_drain(in, (size_t)end.pos + 4);
        evbuffer_add(out, answer, answer_len);
    }
}

static void bev_event(struct bufferevent *bev, short what, void *arg) {
    (void)arg;
    if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)) bufferevent_free(bev);
}

static void bev_accept(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *a, int len, void *arg) {
    (void)l;
    (void)a;
    (void)len;
    (void)arg;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    struct bufferevent *bev = bufferevent_openssl_socket_new(
        base, fd, SSL_new(ctx), BUFFEREVENT_SSL_ACCEPTING, BEV_OPT_CLOSE_ON_FREE);
    if (!bev) {
        close(fd);
        return;
    }
    bufferevent_setcb(bev, bev_read, NULL, bev_event, NULL);
    bufferevent_enable(bev, EV_READ | EV_WRITE);
}

int main(int argc, char **argv) {
    if (argc != 5 || (strcmp(argv[1], "direct") && strcmp(argv[1], "bufferevent"))) {
        fprintf(stderr, "usage: %s direct|bufferevent PORT CERT KEY\n", argv[0]);
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    char body[BODY_BYTES];
    memset(body, 'x', sizeof(body));
    answer_len = (size_t)snprintf(answer, sizeof(answer),
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", BODY_BYTES);
    memcpy(answer + answer_len, body, BODY_BYTES);
    answer_len += BODY_BYTES;

    ctx = SSL_CTX_new(TLS_server_method());
    if (SSL_CTX_use_certificate_chain_file(ctx, argv[3]) != 1 || SSL_CTX_use_PrivateKey_file(ctx, argv[4], SSL_FILETYPE_PEM) != 1) {
        ERR_print_errors_fp(stderr);
        return 1;
    }
    SSL_CTX_set_mode(ctx, SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_ENABLE_PARTIAL_WRITE);
    base = event_base_new();
    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons((unsigned short)atoi(argv[2]))};
    sin.sin_addr.s_addr = htonl(0x7f000001);
    struct evconnlistener *listener = evconnlistener_new_bind(base,
        strcmp(argv[1], "direct") == 0 ? direct_accept : bev_accept, NULL,
        LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE, 1024, (struct sockaddr *)&sin, sizeof(sin));
    if (!listener) {
        perror("listen");
        return 1;
    }
    fprintf(stderr, "%s listening on 127.0.0.1:%s\n", argv[1], argv[2]);
    event_base_dispatch(base);
    return 0;
}
