#if canImport(Glibc)
import Glibc
#endif

/// Starts a detached POSIX thread running `body` (libvips and FFmpeg work needs real threads, not
/// Swift's cooperative pool; AttachKit avoids Foundation's `Thread` so processes stay small).
enum NativeThread {
    private final class Box {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// - Parameter stackSize: bytes of stack (libvips and codecs recurse; default 8 MiB).
    static func start(stackSize: Int = 8 << 20, _ body: @escaping @Sendable () -> Void) {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, stackSize)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, &attributes, { argument in
            let box = Unmanaged<Box>.fromOpaque(argument!).takeRetainedValue()
            box.body()
            return nil
        }, box)
        if status != 0 {
            // No thread could be made: run inline rather than lose the work.
            Unmanaged<Box>.fromOpaque(box).takeRetainedValue().body()
        }
    }
}
