// The Lua scripts the fleet tier runs in Redis: each keeps an entry and its purge indexes
// consistent in one round trip, without KEYS or SCAN.

enum RedisScripts {
    /// KEYS[1] an entry, KEYS[2] the purge count, KEYS[3] the last purge of everything's count,
    /// KEYS[4...] its index sets; ARGV[1] the encoded entry, ARGV[2] its lifetime in ms, ARGV[3]
    /// the purge count its fetch saw when it began. Refuses the write (0) when a purge counted
    /// since reached one of its index sets or everything, or when the count went backwards (Redis
    /// lost its data). Otherwise writes the entry, clears an old soft-purge mark, adds the entry
    /// to each index and keeps every index at least as long-lived as the entries it lists.
    static let store = """
        local seen = tonumber(ARGV[3])
        if tonumber(redis.call('GET', KEYS[2]) or '0') < seen then return 0 end
        if tonumber(redis.call('GET', KEYS[3]) or '0') > seen then return 0 end
        for i = 4, #KEYS do
          if tonumber(redis.call('GET', KEYS[i] .. ':at') or '0') > seen then return 0 end
        end
        redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
        redis.call('DEL', KEYS[1] .. ':soft')
        local px = tonumber(ARGV[2])
        for i = 4, #KEYS do
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

    /// One purge made by this proxy, applied whole or not at all, and at most once: its effect on
    /// the L2, the generation, its entry in the purge log and its message on the channel.
    ///
    /// KEYS[1] the purge's done mark, KEYS[2] the generation, KEYS[3] the purge log, KEYS[4] the
    /// index set (`hard`, `soft`) or the soft purge-all mark (`softall`), KEYS[5] the purge count,
    /// KEYS[6] the last purge of everything's count. ARGV[1] the mode (`hard`,
    /// `soft`, `all`, `softall`), ARGV[2] the proxy's generation, ARGV[3] the purge's wall-clock
    /// ms, ARGV[4] the sender, ARGV[5] soft 0/1, ARGV[6] the kind, ARGV[7] its argument, ARGV[8]
    /// the log's length (0: no log), ARGV[9] the channel, ARGV[10] the done mark's lifetime in ms.
    /// Returns the generation after the purge. The generation never goes backwards: Redis is
    /// raised to the proxy's when behind, and a purge of everything moves past both. The purge
    /// is counted, and the count kept on what it reached (`<index>:at`, or KEYS[6]) as long as
    /// the done mark, so that a fetch that began before it does not write its answer back.
    static let purge = """
        local done = redis.call('GET', KEYS[1])
        if done then return tonumber(done) end
        local shared = tonumber(redis.call('GET', KEYS[2]) or '0')
        local gen = math.max(shared, tonumber(ARGV[2]))
        local mode = ARGV[1]
        local count = redis.call('INCR', KEYS[5])
        if mode == 'all' or mode == 'softall' then
          redis.call('SET', KEYS[6], count, 'PX', ARGV[10])
        else
          redis.call('SET', KEYS[4] .. ':at', count, 'PX', ARGV[10])
        end
        if mode == 'all' then
          gen = gen + 1
        elseif mode == 'softall' then
          redis.call('SET', KEYS[4], ARGV[3], 'PX', 604800000)
        elseif mode == 'hard' then
          local members = redis.call('SMEMBERS', KEYS[4])
          for _, key in ipairs(members) do redis.call('DEL', key, key .. ':soft') end
          redis.call('DEL', KEYS[4])
        else
          local members = redis.call('SMEMBERS', KEYS[4])
          for _, key in ipairs(members) do
            local ttl = redis.call('PTTL', key)
            if ttl > 0 then redis.call('SET', key .. ':soft', ARGV[3], 'PX', ttl) end
          end
        end
        if shared ~= gen then redis.call('SET', KEYS[2], gen) end
        local body = ARGV[5] .. ' ' .. gen .. ' ' .. ARGV[6] .. ' ' .. ARGV[7]
        local origin = ARGV[4]
        if tonumber(ARGV[8]) > 0 then
          local id = redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[8], '*', 'm', 'v1 ' .. ARGV[4] .. ' ' .. body)
          origin = origin .. '@' .. id
        end
        redis.call('PUBLISH', ARGV[9], 'v1 ' .. origin .. ' ' .. body)
        redis.call('SET', KEYS[1], gen, 'PX', ARGV[10])
        return gen
        """

    /// The once-a-second check. KEYS[1] the generation, KEYS[2] the data epoch, KEYS[3] the purge
    /// log; ARGV[1] the proxy's generation, ARGV[2] a new epoch token, ARGV[3] the log's length (0:
    /// no log). Raises a generation behind the proxy's, sets the epoch when missing (Redis started
    /// empty), starts the log when missing; returns {generation, epoch, 1 if set here, log's last id}.
    static let check = """
        local shared = tonumber(redis.call('GET', KEYS[1]) or '-1')
        if shared < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1]); shared = tonumber(ARGV[1]) end
        local created = 0
        local epoch = redis.call('GET', KEYS[2])
        if not epoch then redis.call('SET', KEYS[2], ARGV[2]); epoch = ARGV[2]; created = 1 end
        local last = ''
        if tonumber(ARGV[3]) > 0 then
          local tail = redis.call('XREVRANGE', KEYS[3], '+', '-', 'COUNT', 1)
          if #tail == 0 then
            last = redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[3], '*', 'm', 'start')
          else
            last = tail[1][1]
          end
        end
        return {shared, epoch, created, last}
        """
}
