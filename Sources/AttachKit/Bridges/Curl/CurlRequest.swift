/// What one GET of one URL asks of libcurl (``CurlEasy/perform(_:)``): where to connect, how
/// long it may take, how many bytes may come, and where they go. No redirect is followed and no
/// name is resolved by libcurl: the caller resolves, checks and pins the addresses
/// (``pinnedAddresses``), and follows redirects itself.
struct CurlRequest: Sendable {
    /// An `http://` or `https://` URL.
    var url: String
    /// The host and port of ``url`` (as `CURLOPT_RESOLVE` names them).
    var host: String
    var port: Int
    /// The only addresses libcurl may connect to (numeric, as `inet_ntop` writes them): given to
    /// it as the name's resolution (`CURLOPT_RESOLVE`), and checked again once connected
    /// (`CURLOPT_PREREQFUNCTION`: a connection to any other is aborted, ``CurlFailure/addressRefused(_:)``).
    var pinnedAddresses: [String]
    /// Milliseconds to connect (default 5,000) and for the whole transfer (default 30,000).
    var connectTimeoutMs = 5_000
    var totalTimeoutMs = 30_000
    /// Most bytes a body may have: a `Content-Length` over it (whatever the status), or more
    /// bytes of a `200` received, aborts the transfer at once (``CurlFailure/tooLarge(_:)``).
    var maxBytes: Int64
    /// Extra request header lines (`If-None-Match: "x"`).
    var headers: [String] = []
    /// `User-Agent`.
    var userAgent: String
    /// Takes each piece of a `200` body as it arrives (other bodies are not read): 0, or the
    /// `errno` of a write that failed (the transfer is then aborted, ``CurlFailure/writeFailed(_:)``).
    var sink: @Sendable (UnsafeRawBufferPointer) -> Int32
}

/// What one GET gave.
struct CurlReply: Sendable {
    /// The status of the last response (`0` when none arrived).
    var status: Int = 0
    /// Its header fields, names in lower case, in order.
    var headers: [(name: String, value: String)] = []
    /// Body bytes written to the output (`200` only).
    var received: Int64 = 0
    /// The address connected to (`CURLINFO_PRIMARY_IP`).
    var connectedAddress: String?
    /// Why the transfer did not complete; `nil` when a response arrived whole.
    var failure: CurlFailure?

    /// The last value of header `name` (lower case).
    func header(_ name: String) -> String? { headers.last { $0.name == name }?.value }
}

/// Why a transfer did not complete (which libcurl result, as a case).
enum CurlFailure: Sendable, Equatable {
    /// A timeout ran out (`CURLE_OPERATION_TIMEDOUT`): connecting or the whole transfer.
    case timedOut
    /// No connection could be made (refused, unreachable).
    case cannotConnect(String)
    /// The body is over ``CurlRequest/maxBytes``: its declared length, or the bytes received so far.
    case tooLarge(Int64)
    /// libcurl connected to an address that is not pinned (never expected; the check of the
    /// connection itself).
    case addressRefused(String)
    /// The output could not be written (`errno`).
    case writeFailed(Int32)
    /// The origin's answer is not well-formed HTTP (two lengths, a length that is no number, a
    /// head too large): what is wrong with it.
    case malformed(String)
    /// Anything else, with libcurl's message.
    case other(String)
}
