#if canImport(Glibc)
import Glibc
#endif

// libm's functions the pipelines' models use, under their C names, so the layers above call
// `pow(x, y)` without importing Glibc (disfavoured, so a file that imports Glibc or Foundation too
// calls libm directly).

/// `pow(3)`.
@_disfavoredOverload @inline(__always) func pow(_ x: Double, _ y: Double) -> Double { Glibc.pow(x, y) }
/// `log(3)`: the natural logarithm.
@_disfavoredOverload @inline(__always) func log(_ x: Double) -> Double { Glibc.log(x) }
/// `exp(3)`.
@_disfavoredOverload @inline(__always) func exp(_ x: Double) -> Double { Glibc.exp(x) }
/// `sin(3)`.
@_disfavoredOverload @inline(__always) func sin(_ x: Double) -> Double { Glibc.sin(x) }
