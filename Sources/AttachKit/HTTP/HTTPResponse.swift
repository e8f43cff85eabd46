/// One answer of `attachkit http`: a status, headers and a body held in memory (JSON, metrics)
/// or an open file (a prepared attachment, sent from its descriptor).
package struct HTTPResponse: Sendable {
    package var status: Int
    package var headers: [(name: String, value: String)]
    package var body: HTTPBody
    /// The error code of an error answer (``error(_:status:report:headers:)``), for metrics and
    /// the access log; `nil` for a success.
    package private(set) var errorCode: ErrorCode?

    package init(status: Int, headers: [(name: String, value: String)] = [], body: HTTPBody) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON body (`application/json`).
    package static func json(_ status: Int, _ value: JSONValue, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json")] + headers,
                     body: .bytes(Array((value.serialized + "\n").utf8)))
    }

    /// The error answer: `{"code", "message"}` (plus `report` when the operation made one), with
    /// the status ``ErrorCode/httpStatus`` gives the code unless `status` says otherwise.
    package static func error(_ error: ServiceError, status: Int? = nil, report: JSONValue? = nil,
                              headers: [(name: String, value: String)] = []) -> HTTPResponse {
        var pairs: [(String, JSONValue)] = [("code", .string(error.code.rawValue)), ("message", .string(error.message))]
        if let report { pairs.append(("report", report)) }
        var extra = headers
        if error.code == .busy || error.code == .unavailable { extra.append(("Retry-After", "1")) }
        var response = json(status ?? error.code.httpStatus, .object(pairs), headers: extra)
        response.errorCode = error.code
        return response
    }

    /// Bytes the body holds.
    package var bodyBytes: Int64 {
        switch body {
        case .bytes(let bytes): return Int64(bytes.count)
        case .file(let file): return file.size
        }
    }
}

/// What an answer carries.
package enum HTTPBody: Sendable {
    case bytes([UInt8])
    case file(OpenFile)
}

/// A file opened for sending, with one owner: closed when dropped, unless ``take()`` handed the
/// descriptor on (to libmicrohttpd, which closes it once the answer is sent or abandoned).
package final class OpenFile: @unchecked Sendable {
    private let descriptor: Locked<Int32>
    /// Its size when opened, bytes.
    package let size: Int64

    /// Opens `path` for reading; `nil` when it cannot be opened.
    package init?(path: String) {
        guard let fd = try? FileDescriptor.open(path, .readOnly), let status = try? fd.status() else { return nil }
        size = status.size
        descriptor = Locked(fd.release())
    }

    /// A path that opens the same file anew (`/proc/self/fd/N`), while the descriptor is held.
    package var path: String { Descriptors.path(of: descriptor.withLock { $0 }) }

    /// Hands the descriptor over (once; `-1` afterwards).
    package func take() -> Int32 {
        descriptor.withLock { fd in
            defer { fd = -1 }
            return fd
        }
    }

    deinit {
        let fd = take()
        if fd >= 0 { FileDescriptor(adopting: fd).close() }
    }
}

/// Base64url without padding (RFC 4648 §5): text safe in an HTTP header and a URL. The standard
/// alphabet's `+` and `/` become `-` and `_` (``Base64``), and the padding goes.
package enum Base64URL {
    package static func encode(_ bytes: [UInt8]) -> String {
        String(Base64.encode(bytes).compactMap { character -> Character? in
            switch character {
            case "+": return "-"
            case "/": return "_"
            case "=": return nil
            default: return character
            }
        })
    }

    /// The bytes of unpadded base64url text; `nil` for a character outside the alphabet, padding,
    /// or a length no encoding gives (4n + 1), or stray bits in the last character (so each byte
    /// string has one text: a signature cannot be varied).
    package static func decode(_ text: some StringProtocol) -> [UInt8]? {
        var values: [UInt32] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): values.append(UInt32(byte - UInt8(ascii: "A")))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): values.append(UInt32(byte - UInt8(ascii: "a")) + 26)
            case UInt8(ascii: "0")...UInt8(ascii: "9"): values.append(UInt32(byte - UInt8(ascii: "0")) + 52)
            case UInt8(ascii: "-"): values.append(62)
            case UInt8(ascii: "_"): values.append(63)
            default: return nil
            }
        }
        guard values.count % 4 != 1 else { return nil }
        var bytes: [UInt8] = []
        var index = 0
        while index < values.count {
            let group = values[index..<min(index + 4, values.count)]
            var value: UInt32 = 0
            for (position, sextet) in group.enumerated() { value |= sextet << (18 - 6 * UInt32(position)) }
            let count = group.count - 1
            let spare = value & ((1 << (24 - 8 * UInt32(count))) - 1)
            guard spare == 0 else { return nil }
            for position in 0..<count { bytes.append(UInt8(truncatingIfNeeded: value >> (16 - 8 * UInt32(position)))) }
            index += 4
        }
        return bytes
    }
}
