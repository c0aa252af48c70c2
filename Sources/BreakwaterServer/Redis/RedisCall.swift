// One command sent to Redis: its completion runs exactly once, with the reply or with nil when
// the deadline passes first, the connection goes away, or the command could not be sent.

/// A command in flight; retained by hiredis (as the callback's private data) until it replies.
final class RedisCall {
    private var completion: OneShotCompletion<RedisReply?>
    let sentAt: ContinuousClock.Instant

    init(sentAt: ContinuousClock.Instant, completion: @escaping (RedisReply?) -> Void) {
        self.sentAt = sentAt
        self.completion = OneShotCompletion(completion)
    }

    /// Whether the call was already answered (a late reply after its deadline is ignored).
    var isFinished: Bool { completion.isFinished }

    /// Completes the call, the first time only.
    func finish(_ reply: RedisReply?) { completion.finish(reply) }
}
