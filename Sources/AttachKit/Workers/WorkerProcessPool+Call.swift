extension WorkerProcessPool {
    /// Runs `call` in one of the workers: the call crosses as a request line
    /// (``ServiceCall/request(progress:)``) and its answer comes back as one
    /// (``ServiceAnswer/init(line:)``), the only place either becomes text. A worker that died or
    /// broke a limit is the answer's error (``WorkerFailure``'s code). Blocks the calling thread,
    /// as ``run(_:outputFolder:progress:)`` does.
    /// - Parameter progress: receives the share of a prepare's output encoded (the worker is then
    ///   asked for progress lines).
    func perform(_ call: ServiceCall, progress: ((Double) -> Void)? = nil) -> ServiceAnswer {
        switch run(call.request(progress: progress != nil).line, outputFolder: call.outputFolder, progress: progress) {
        case .success(let line):
            do throws(ServiceError) {
                return try ServiceAnswer(line: line)
            } catch {
                return ServiceAnswer(id: call.id, error: ServiceError(code: .processingFailed, message: "the worker's answer is not JSON"),
                                     sandbox: sandbox)
            }
        case .failure(let failure):
            return ServiceAnswer(id: call.id, error: ServiceError(failure), sandbox: sandbox)
        }
    }
}
