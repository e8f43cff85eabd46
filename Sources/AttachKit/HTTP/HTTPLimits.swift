/// The limits of `attachkit http`, for a service that faces the public: how big a body may be,
/// how many requests are worked on or wait, how long a client may take to send one, how long a
/// preparation may run, and how long a shutdown waits.
public struct HTTPLimits: Sendable {
    /// Largest request body, bytes. Default 100 MB (100,000,000). A `Content-Length` over it is
    /// refused before the body is read; a chunked body that grows over it is discarded as it comes.
    /// Either way the answer is 413 `over-cap`.
    public var maxBodyBytes: Int64 = 100_000_000
    /// Requests that may wait beyond the service's `jobs` working ones, their bodies received.
    /// Default `jobs × 4` (as `serve` reads ahead). One more gets 429 `busy`: before its body is
    /// read when they are all taken as its headers arrive, else once its body is in.
    public var queue: Int?
    /// Request bodies that may be arriving at once (each written to the spool as it comes). A
    /// request takes a work slot only once its body is in, so uploads, however slow, never hold
    /// the work slots; they hold these. One more gets 429 `busy` before its body is read.
    /// Default 128.
    public var uploads: Int = 128
    /// Uploads one client address may have in progress at once; one more from it gets 429 `busy`.
    /// Default 32.
    public var uploadsPerClient: Int = 32
    /// Seconds a client has to send a whole request, headers and body (a client that sends one
    /// byte a second is cut off when they run out). Default 30.
    public var readTimeoutSeconds: Int = 30
    /// Seconds a connection has to send a request's headers, from its opening: a connection that
    /// sends nothing (or not a whole head) is closed after this long, unanswered. Default 10;
    /// never more than ``readTimeoutSeconds``.
    public var headerTimeoutSeconds: Int = 10
    /// Connections open at once (each has a thread, idle ones cost little). Past it, new
    /// connections are refused (closed at once). Default 1024.
    public var connections: Int = 1_024
    /// Connections open at once from one IP address; past it, that address's new connections are
    /// refused, so one client cannot take every connection. Default 256.
    public var connectionsPerClient: Int = 256
    /// The longest `deadline` a prepare runs under, seconds: a request asking none or more gets
    /// this one. Default `nil` (no server-wide deadline).
    public var deadline: Double?
    /// Seconds a shutdown (SIGTERM) waits for the requests in flight to finish. Default 30.
    public var drainSeconds: Double = 30

    public init() {}

    /// Requests admitted at once (working and waiting) for a service with `jobs` jobs.
    func admitted(jobs: Int) -> Int { jobs + (queue ?? jobs * 4) }
}
