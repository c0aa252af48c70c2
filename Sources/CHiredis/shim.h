// CHiredis: hiredis 0.14 (Debian's libhiredis-dev) with its libevent adapter, for the Redis
// fleet tier; static inline wrappers for what Swift cannot call (variadic functions, the
// adapter's header-only static functions, reply-type macros).
#ifndef BREAKWATER_CHIREDIS_SHIM_H
#define BREAKWATER_CHIREDIS_SHIM_H

#include <hiredis/hiredis.h>
#include <hiredis/async.h>
#include <hiredis/adapters/libevent.h>

// redisLibeventAttach is a static function of the adapter header: one named entry for Swift.
static inline int CHiredis_attach(redisAsyncContext *context, struct event_base *base) {
    return redisLibeventAttach(context, base);
}

// redisAsyncCommand is variadic (printf-like); Swift sends every command as argv instead,
// which also keeps binary values (cache entries) intact.
static inline int CHiredis_command(redisAsyncContext *context, redisCallbackFn *callback, void *privdata,
                                   int argc, const char **argv, const size_t *argvlen) {
    return redisAsyncCommandArgv(context, callback, privdata, argc, argv, argvlen);
}

// REDIS_OK and the REDIS_REPLY_* constants are macros; these are the values Swift compares with.
static const int CHiredis_OK = REDIS_OK;
static const int CHiredis_REPLY_STRING = REDIS_REPLY_STRING;
static const int CHiredis_REPLY_ARRAY = REDIS_REPLY_ARRAY;
static const int CHiredis_REPLY_INTEGER = REDIS_REPLY_INTEGER;
static const int CHiredis_REPLY_NIL = REDIS_REPLY_NIL;
static const int CHiredis_REPLY_STATUS = REDIS_REPLY_STATUS;
static const int CHiredis_REPLY_ERROR = REDIS_REPLY_ERROR;

// The context's error string, NULL when there is none (a field of a struct Swift sees as opaque
// through the adapter's includes).
static inline const char *CHiredis_error(const redisAsyncContext *context) {
    return context->err ? context->errstr : NULL;
}

// The user pointer hiredis keeps for us (a Swift object, unretained).
static inline void *CHiredis_data(const redisAsyncContext *context) { return context->data; }
static inline void CHiredis_setData(redisAsyncContext *context, void *data) { context->data = data; }

// A blocking context's error string, NULL when there is none (errstr is a char array Swift sees
// as a tuple).
static inline const char *CHiredis_blockingError(const redisContext *context) {
    return context->err ? context->errstr : NULL;
}

#endif
