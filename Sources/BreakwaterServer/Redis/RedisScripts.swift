// The Lua scripts the shared tier runs in Redis: each keeps an entry and its purge indexes
// consistent in one round trip, without KEYS or SCAN.

enum RedisScripts {
    /// KEYS[1] an entry, KEYS[2...] its index sets; ARGV[1] the encoded entry, ARGV[2] its
    /// lifetime in ms. Writes the entry, clears an old soft-purge mark, adds the entry to each
    /// index and keeps every index at least as long-lived as the entries it lists.
    static let store = """
        redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
        redis.call('DEL', KEYS[1] .. ':soft')
        local px = tonumber(ARGV[2])
        for i = 2, #KEYS do
          redis.call('SADD', KEYS[i], KEYS[1])
          if redis.call('PTTL', KEYS[i]) < px then redis.call('PEXPIRE', KEYS[i], px) end
        end
        return 1
        """

    /// KEYS[1] an index set. Deletes every entry it lists (and their soft marks), then the set;
    /// returns how many entries it listed.
    static let purgeHard = """
        local members = redis.call('SMEMBERS', KEYS[1])
        for _, key in ipairs(members) do redis.call('DEL', key, key .. ':soft') end
        redis.call('DEL', KEYS[1])
        return #members
        """

    /// KEYS[1] an index set; ARGV[1] the wall-clock ms of the purge. Marks every entry it lists
    /// stale from then on (the mark lives as long as the entry); returns how many it listed.
    static let purgeSoft = """
        local members = redis.call('SMEMBERS', KEYS[1])
        for _, key in ipairs(members) do
          local ttl = redis.call('PTTL', key)
          if ttl > 0 then redis.call('SET', key .. ':soft', ARGV[1], 'PX', ttl) end
        end
        return #members
        """

    /// KEYS[1] a lease; ARGV[1] the holder's id. Deletes the lease only while this proxy holds it.
    static let releaseLease = """
        if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
        return 0
        """

    /// KEYS[1] a lease; ARGV[1] the holder's value, ARGV[2] a term in ms. Extends the lease to
    /// the term while this proxy holds it; 1 when it did, 0 when another value (or none) is there.
    static let renewLease = """
        if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
        return 0
        """

    /// KEYS[1] the per-user operations set, KEYS[2] its change counter; ARGV[1] an operation,
    /// ARGV[2] a lifetime in ms. Adds it, and moves the counter when it was new.
    static let sharePerUserOperation = """
        if redis.call('SADD', KEYS[1], ARGV[1]) == 1 then redis.call('INCR', KEYS[2]) end
        redis.call('PEXPIRE', KEYS[1], ARGV[2])
        redis.call('PEXPIRE', KEYS[2], ARGV[2])
        return 1
        """
}
