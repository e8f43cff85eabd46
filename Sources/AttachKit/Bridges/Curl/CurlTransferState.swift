import CCurl
#if canImport(Glibc)
import Glibc
#endif

/// What one ``CurlEasy/perform(_:)`` keeps while libcurl calls back: the header fields of the
/// response, the bytes counted against the limit, and why it stopped. Reached from the C callbacks
/// through their context pointer (alive for the transfer).
final class CurlTransferState {
    let request: CurlRequest
    var reply = CurlReply()
    var failure: CurlFailure?
    /// The transfer was ended on purpose once the head of an answer other than `200` was in:
    /// its body is not wanted (an endless error body cannot hold the fetch until the timeout).
    private(set) var endedAfterHead = false
    private var status = 0

    init(_ request: CurlRequest) { self.request = request }

    /// `CURLOPT_HEADERFUNCTION`: one header line. A status line starts a new response (after
    /// `100 Continue`); a `Content-Length` over the limit (any status) or malformed, or a head
    /// over ``maxHeadBytes``, aborts the transfer; the end of a head other than `200`'s ends it.
    static let onHeader: ak_curl_data_callback = { data, size, count, context in
        let state = Unmanaged<CurlTransferState>.fromOpaque(context!).takeUnretainedValue()
        let length = size * count
        let bytes = UnsafeRawBufferPointer(start: data, count: length)
        let line = String(decoding: bytes.prefix { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        return state.header(line) ? length : 0
    }

    /// `CURLOPT_WRITEFUNCTION`: body bytes, written to the output for a `200` (counted against
    /// the limit: one byte over aborts the transfer); no other body gets here (its head ended
    /// the transfer, ``endedAfterHead``).
    static let onData: ak_curl_data_callback = { data, size, count, context in
        let state = Unmanaged<CurlTransferState>.fromOpaque(context!).takeUnretainedValue()
        let length = size * count
        return state.body(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
    }

    /// `CURLOPT_PREREQFUNCTION`: connected, nothing sent yet; aborts a connection to an address
    /// that is not pinned.
    static let onConnected: curl_prereq_callback = { context, primary, _, _, _ in
        let state = Unmanaged<CurlTransferState>.fromOpaque(context!).takeUnretainedValue()
        let address = primary.map { String(cString: $0) } ?? ""
        guard state.request.pinnedAddresses.contains(address) else {
            state.failure = .addressRefused(address)
            return Int32(CURL_PREREQFUNC_ABORT)
        }
        return Int32(CURL_PREREQFUNC_OK)
    }

    /// Most bytes of one response's head (status line and fields): past it the origin's header
    /// is too large (libcurl's own limit would say "Out of memory").
    static let maxHeadBytes = 64 * 1024

    private var headBytes = 0
    /// The head of the final answer (not a 1xx) has been read whole.
    private(set) var headEnded = false
    private var declaredLength: Int64?

    /// Every answer's head is checked, whatever its status: its size, and its `Content-Length`
    /// (digits only, one value however often it is sent; RFC 9112 §6.3), within the limit for a
    /// `200`. The
    /// head of an answer other than `200` ends the transfer (``endedAfterHead``): its body is
    /// never read, so no redirect or error body can outgrow the limit or hold the fetch.
    private func header(_ line: String) -> Bool {
        headBytes += line.utf8.count + 2
        guard headBytes <= Self.maxHeadBytes else {
            failure = .malformed("its header is over \(Self.maxHeadBytes / 1024) KiB")
            return false
        }
        if line.hasPrefix("HTTP/") {
            reply.headers = []
            headBytes = line.utf8.count + 2
            declaredLength = nil
            status = Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
            return true
        }
        if line.isEmpty {
            headEnded = status >= 200
            // The end of a head: a 1xx is followed by another; any other status but 200 is not read on.
            guard status >= 200, status != 200 else { return true }
            endedAfterHead = true
            return false
        }
        guard let colon = line.firstIndex(of: ":") else { return true }
        let name = line[..<colon].lowercased()
        let value = HTTPBytes.trimmed(line[line.index(after: colon)...])
        reply.headers.append((name, value))
        guard name == "content-length" else { return true }
        for item in value.split(separator: ",", omittingEmptySubsequences: false) {
            let digits = HTTPBytes.trimmed(item)
            guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
                failure = .malformed("its Content-Length \(String(value.prefix(40)).debugDescription) is not a number")
                return false
            }
            // Digits past Int64 are a length over any limit.
            let declared = Int64(digits) ?? Int64.max
            if let earlier = declaredLength, earlier != declared {
                failure = .malformed("it sent two different Content-Length values (\(earlier) and \(digits.prefix(40)))")
                return false
            }
            declaredLength = declared
            // Only a 200's body is read: another's length says nothing about what is received.
            if status == 200, declared > request.maxBytes {
                failure = .tooLarge(declared)
                return false
            }
        }
        return true
    }

    private func body(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard status == 200 else {
            // Never reached (the head ended the transfer), but no other body is ever kept.
            endedAfterHead = true
            return false
        }
        reply.received += Int64(bytes.count)
        guard reply.received <= request.maxBytes else {
            failure = .tooLarge(reply.received)
            return false
        }
        let error = request.sink(bytes)
        guard error == 0 else {
            failure = .writeFailed(error)
            return false
        }
        return true
    }
}
