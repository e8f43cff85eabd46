import CCurl
#if canImport(Glibc)
import Glibc
#endif

/// One libcurl easy handle, with one owner: `curl_easy_init` in `init`, `curl_easy_cleanup` in
/// `deinit`. ``perform(_:)`` runs one GET as a ``CurlRequest`` says, with these settings always:
/// HTTP and HTTPS only, no redirect followed, no proxy (whatever the environment says), no
/// cookies, no `.netrc`, no signals (it runs on any thread), TLS peers verified (libcurl's default).
struct CurlEasy: ~Copyable {
    private let handle: UnsafeMutableRawPointer

    /// `nil` when libcurl cannot make a handle (out of memory).
    init?() {
        _ = Self.initialized
        guard let handle = curl_easy_init() else { return nil }
        self.handle = handle
    }

    deinit { curl_easy_cleanup(handle) }

    /// `curl_global_init`, once per process, before the first handle.
    private static let initialized: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    /// The libcurl version (`curl_version_info`), for logs: `7.88.1`.
    static var version: String {
        guard let info = curl_version_info(CURLversion(rawValue: CURLversion.RawValue(CURLVERSION_TENTH.rawValue))), let text = info.pointee.version else { return "unknown" }
        return String(cString: text)
    }

    /// Runs one GET (`curl_easy_perform`); never follows a redirect.
    func perform(_ request: CurlRequest) -> CurlReply {
        curl_easy_reset(handle)
        let state = CurlTransferState(request)
        let context = Unmanaged.passUnretained(state).toOpaque()
        var resolve: UnsafeMutablePointer<curl_slist>? = nil
        // An IP-literal host is not resolved by libcurl (nothing to pin; the connected address is
        // still checked), and libcurl 7.88 cannot read an IPv6 host in a CURLOPT_RESOLVE entry.
        if OriginAddress(request.host) == nil {
            let entry = "\(request.host):\(request.port):\(request.pinnedAddresses.map { $0.contains(":") ? "[\($0)]" : $0 }.joined(separator: ","))"
            resolve = curl_slist_append(resolve, entry)
        }
        var headers: UnsafeMutablePointer<curl_slist>? = nil
        for line in request.headers { headers = curl_slist_append(headers, line) }
        defer {
            curl_slist_free_all(resolve)
            curl_slist_free_all(headers)
        }
        configure(request, resolve: resolve, headers: headers, context: context)
        let code = withExtendedLifetime(state) { curl_easy_perform(handle) }
        var reply = state.reply
        reply.status = Int(ak_curl_info_long(handle, CURLINFO_RESPONSE_CODE))
        reply.connectedAddress = ak_curl_info_text(handle, CURLINFO_PRIMARY_IP).map { String(cString: $0) }
        if code != CURLE_OK, !state.endedAfterHead {
            // libcurl refuses a header line over 100 KiB as "Out of memory", before the callback sees it.
            let tooLarge = code == CURLE_OUT_OF_MEMORY && !state.headEnded
            reply.failure = state.failure ?? (tooLarge ? .malformed("its header is too large (over libcurl's 100 KiB for one line)") : Self.failure(code))
        }
        return reply
    }

    private func configure(_ request: CurlRequest, resolve: UnsafeMutablePointer<curl_slist>?,
                           headers: UnsafeMutablePointer<curl_slist>?, context: UnsafeMutableRawPointer) {
        ak_curl_set_text(handle, CURLOPT_URL, request.url)
        ak_curl_set_text(handle, CURLOPT_PROTOCOLS_STR, "http,https")
        ak_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 0)
        ak_curl_set_text(handle, CURLOPT_PROXY, "")
        ak_curl_set_text(handle, CURLOPT_NOPROXY, "*")
        ak_curl_set_long(handle, CURLOPT_NOSIGNAL, 1)
        ak_curl_set_long(handle, CURLOPT_NETRC, Int(CURL_NETRC_IGNORED.rawValue))
        ak_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, request.connectTimeoutMs)
        ak_curl_set_long(handle, CURLOPT_TIMEOUT_MS, request.totalTimeoutMs)
        ak_curl_set_text(handle, CURLOPT_USERAGENT, request.userAgent)
        ak_curl_set_pointer(handle, CURLOPT_RESOLVE, UnsafeMutableRawPointer(resolve))
        ak_curl_set_pointer(handle, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(headers))
        ak_curl_set_data_callback(handle, CURLOPT_HEADERFUNCTION, CurlTransferState.onHeader)
        ak_curl_set_pointer(handle, CURLOPT_HEADERDATA, context)
        ak_curl_set_data_callback(handle, CURLOPT_WRITEFUNCTION, CurlTransferState.onData)
        ak_curl_set_pointer(handle, CURLOPT_WRITEDATA, context)
        ak_curl_set_prereq(handle, CurlTransferState.onConnected)
        ak_curl_set_pointer(handle, CURLOPT_PREREQDATA, context)
    }

    /// libcurl's result as a case, for a failure the callbacks did not name.
    private static func failure(_ code: CURLcode) -> CurlFailure {
        let message = String(cString: curl_easy_strerror(code))
        switch code {
        case CURLE_OPERATION_TIMEDOUT: return .timedOut
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST: return .cannotConnect(message)
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_WEIRD_SERVER_REPLY: return .malformed("its answer is not HTTP libcurl can read (\(message))")
        default: return .other(message)
        }
    }
}
