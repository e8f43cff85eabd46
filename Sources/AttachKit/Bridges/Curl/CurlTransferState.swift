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
    /// `100 Continue`); a `Content-Length` over the limit on a `200` aborts the transfer.
    static let onHeader: ak_curl_data_callback = { data, size, count, context in
        let state = Unmanaged<CurlTransferState>.fromOpaque(context!).takeUnretainedValue()
        let length = size * count
        let bytes = UnsafeRawBufferPointer(start: data, count: length)
        let line = String(decoding: bytes.prefix { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        return state.header(line) ? length : 0
    }

    /// `CURLOPT_WRITEFUNCTION`: body bytes, written to the output for a `200` (counted against
    /// the limit: one byte over aborts the transfer); the first byte of any other body ends the
    /// transfer (``endedAfterHead``).
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

    private func header(_ line: String) -> Bool {
        if line.hasPrefix("HTTP/") {
            reply.headers = []
            status = Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
            return true
        }
        guard let colon = line.firstIndex(of: ":") else { return true }
        let name = line[..<colon].lowercased()
        let value = HTTPBytes.trimmed(line[line.index(after: colon)...])
        reply.headers.append((name, value))
        if status == 200, name == "content-length", let declared = Int64(value), declared > request.maxBytes {
            failure = .tooLarge(declared)
            return false
        }
        return true
    }

    private func body(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard status == 200 else {
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
