/// The body of a successful `POST /v1/prepare`: the prepared attachment itself, sent from its
/// descriptor, with its report in the `AttachKit-Report` header as base64url JSON; with
/// `thumbnail=1`, `multipart/mixed` holding the attachment then the thumbnail JPEG (the report
/// still in the header).
///
/// Why a header: the body stays the attachment byte for byte (`curl -o photo.jpg` gives the
/// file; `Content-Length` is its size; it is sent with `sendfile` from the output's descriptor,
/// never copied), and the report is one header any client reads without a multipart parser.
/// Base64url because a header must be one line of visible ASCII, while the report's JSON holds
/// any Unicode (file names, messages); its size is a few kilobytes, under every client's header
/// limit (Python's `http.client` allows 64 KiB per line). A thumbnail is a second file, so it
/// needs a second part; multipart is used only then.
enum PreparedBody {
    /// - Parameters: `output` and `thumbnail` are the files in the spool `folder`; `report` is
    ///   what the client sees.
    static func response(output: String?, thumbnail: String?, report: JSONValue, folder: String) -> HTTPResponse {
        let header = ("AttachKit-Report", Base64URL.encode(Array(report.serialized.utf8)))
        guard let output else {
            return .error(ServiceError(code: .processingFailed, message: "the report names no output"))
        }
        let name = PathResolver.fileName(output)
        var parts = [(path: output, type: MediaTypes.type(ofFile: output), name: name)]
        if let thumbnail {
            parts.append((thumbnail, "image/jpeg", PathResolver.fileName(thumbnail)))
        }
        var headers: [(name: String, value: String)] = [header]
        let path: String
        if parts.count == 1 {
            path = output
            headers += [("Content-Type", parts[0].type), ("Content-Disposition", "attachment; filename=\"\(name)\"")]
        } else {
            // Random: nothing of the spool (its folder's name) in what the client sees.
            let boundary = "attachkit-" + HTTPExchange.newRequestID()
            path = folder + "/body.multipart"
            guard writeParts(parts, boundary: boundary, to: path) else {
                return .error(ServiceError(code: .writeFailed, message: "cannot write the multipart body into the spool"))
            }
            headers.append(("Content-Type", "multipart/mixed; boundary=\(boundary)"))
        }
        guard let file = OpenFile(path: path) else {
            return .error(ServiceError(code: .processingFailed, message: "cannot open the output \(name)"))
        }
        // The descriptor keeps the bytes; the spool folder can go now.
        HTTPSpool.remove(folder)
        return HTTPResponse(status: 200, headers: headers, body: .file(file))
    }

    /// Writes each part (`Content-Type`, `Content-Disposition` with its file name, its bytes)
    /// between `--boundary` lines.
    private static func writeParts(_ parts: [(path: String, type: String, name: String)], boundary: String, to path: String) -> Bool {
        guard let fd = try? FileDescriptor.open(path, [.writeOnly, .create, .exclusive, .noFollow], mode: 0o600) else { return false }
        for part in parts {
            let head = "--\(boundary)\r\nContent-Type: \(part.type)\r\nContent-Disposition: attachment; filename=\"\(part.name)\"\r\n\r\n"
            guard writeAll(fd, Array(head.utf8)), copy(part.path, to: fd), writeAll(fd, Array("\r\n".utf8)) else { return false }
        }
        return writeAll(fd, Array("--\(boundary)--\r\n".utf8))
    }

    private static func copy(_ path: String, to fd: borrowing FileDescriptor) -> Bool {
        guard let source = try? FileDescriptor.open(path, .readOnly) else { return false }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            guard let count = try? source.read(into: &buffer) else { return false }
            if count == 0 { return true }
            guard (try? fd.writeAll(buffer, count: count)) != nil else { return false }
        }
    }

    private static func writeAll(_ fd: borrowing FileDescriptor, _ bytes: [UInt8]) -> Bool {
        (try? fd.writeAll(bytes)) != nil
    }
}
