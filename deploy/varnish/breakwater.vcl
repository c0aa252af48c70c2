# Varnish in front of Breakwater, purged by Breakwater itself (docs/CDN.md).
#
# Needs Varnish 7 with varnish-modules' xkey (Debian: apt-get install varnish varnish-modules)
# and Breakwater configured with:
#   cache:
#     tag_header: xkey
#   cdn:
#     targets:
#       - kind: varnish
#         urls: ["http://127.0.0.1:6081/"]
# Breakwater tags each cacheable answer in the `xkey` header (op:<name>, hash:<hex>, Type,
# Type:id); xkey indexes the object under each tag. Breakwater then sends
#   PURGE / with `xkey-purge: <tags>`      (hard purge: the objects are gone)
#   PURGE / with `xkey-softpurge: <tags>`  (soft purge: stale, served within grace while refetched)
#   BAN /                                  (purge everything)

vcl 4.1;

import xkey;

backend breakwater {
    .host = "127.0.0.1";
    .port = "8080";
}

# Who may purge: the Breakwater hosts. Add their addresses when Varnish runs elsewhere.
acl purgers {
    "127.0.0.1";
    "::1";
}

sub vcl_recv {
    if (req.method == "PURGE") {
        if (client.ip !~ purgers) {
            return (synth(403, "Forbidden"));
        }
        if (req.http.xkey-purge) {
            set req.http.x-purged = xkey.purge(req.http.xkey-purge);
        } else if (req.http.xkey-softpurge) {
            set req.http.x-purged = xkey.softpurge(req.http.xkey-softpurge);
        } else {
            return (synth(400, "PURGE needs xkey-purge or xkey-softpurge"));
        }
        return (synth(200, "Purged " + req.http.x-purged));
    }
    if (req.method == "BAN") {
        if (client.ip !~ purgers) {
            return (synth(403, "Forbidden"));
        }
        ban("obj.status != 0");
        return (synth(200, "Banned"));
    }
    # Hashed GETs are cacheable; POSTs (mutations, registrations) go through.
    if (req.method != "GET" && req.method != "HEAD") {
        return (pass);
    }
    # Per-user requests: Breakwater answers them `private, no-store`; never look them up.
    if (req.http.Authorization || req.http.Cookie) {
        return (pass);
    }
    return (hash);
}

sub vcl_backend_response {
    # A STALE answer (soft-purged or past its TTL in Breakwater: max-age=0 with
    # stale-while-revalidate) is kept in grace and served while Varnish fetches it again,
    # rather than made a hit-for-miss object that sends every request through. Its TTL is
    # made 1 ms: a lookup skips an object whose TTL is exactly 0, grace or not.
    if (beresp.ttl <= 0s && beresp.grace > 0s && beresp.http.Cache-Control ~ "public"
        && beresp.http.Cache-Control !~ "(?i)(private|no-store|no-cache)" && !beresp.http.Set-Cookie) {
        set beresp.ttl = 1ms;
        return (deliver);
    }
}

sub vcl_deliver {
    # Shows whether Varnish answered from its cache; the tags are for Varnish only.
    if (obj.hits > 0) {
        set resp.http.X-Edge-Cache = "HIT";
    } else {
        set resp.http.X-Edge-Cache = "MISS";
    }
    unset resp.http.xkey;
}
