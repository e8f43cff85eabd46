extension AccessLedger {
    /// Acquire → work → release in one call: grants `path` (see ``acquire(_:mode:fileID:line:)``),
    /// runs `body` with the handle and releases it on every path, a return or a throw. The one
    /// way AttachKit's front ends (the CLI, the service, a batch) use an input.
    ///
    /// - Parameters:
    ///   - refused: the value to return when access is refused (``AccessError``: not found,
    ///     outside every scope, not a regular file...); `body` does not run.
    ///   - body: the work; what it throws is rethrown after the handle is released.
    /// - Throws: only what `body` throws.
    public func withAccess<Value, Failure: Error>(
        _ path: String, mode: AccessMode = .read, fileID: String = #fileID, line: Int = #line,
        refused: (AccessError) -> Value, _ body: (borrowing AccessHandle) throws(Failure) -> Value
    ) throws(Failure) -> Value {
        let handle: AccessHandle
        do { handle = try acquire(path, mode: mode, fileID: fileID, line: line) } catch { return refused(error) }
        let value: Value
        do {
            value = try body(handle)
        } catch {
            handle.release()
            throw error
        }
        handle.release()
        return value
    }
}
