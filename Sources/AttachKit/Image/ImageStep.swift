/// One step of the image pipeline. A step looks at the work so far, returns at once when it has
/// nothing to do, and otherwise changes the pixels, the plan or the output.
protocol ImageStep: Sendable {
    /// What the step does, in words ("load and downscale"): named by deadline and processing errors.
    var name: String { get }
    /// - Throws: ``PrepareError``; the pipeline writes nothing then.
    func run(_ work: inout ImageWork) throws(PrepareError)
}
