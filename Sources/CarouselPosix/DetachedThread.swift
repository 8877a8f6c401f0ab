import CLinux
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A POSIX thread nobody joins (`pthread_create` with `PTHREAD_CREATE_DETACHED`), for work that
/// may block in a library call for seconds (libiio's network backend waits 5 s per call on an
/// iiod that stops answering) and must never hold the event loop: the loop hands it the work
/// and learns of the result through a descriptor it polls (`EventNotifier`), never by waiting.
/// Such a thread may outlive the loop; `exitProcess(_:)` ends the process safely then.
public enum DetachedThread {
    /// Threads started and not yet ended (their body has not returned).
    private static let alive = Atomic<Int>(0)

    /// How many detached threads are running now.
    public static var running: Int { alive.load(ordering: .acquiring) }

    /// Starts a thread named `name` that runs `body` once and ends.
    /// - Parameter name: what `top -H` and /proc/PID/task/TID/comm show (at most 15 bytes).
    /// - Throws: `SystemError` naming `pthread_create` (EAGAIN: the thread limit); `body` is not
    ///   run then.
    public static func spawn(name: String, _ body: @escaping @Sendable () -> Void) throws(SystemError) {
        final class Start {
            let name: String
            let body: @Sendable () -> Void
            init(name: String, body: @escaping @Sendable () -> Void) { self.name = name; self.body = body }
        }
        var thread = pthread_t()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        defer { pthread_attr_destroy(&attributes) }
        let context = Unmanaged.passRetained(Start(name: name, body: body)).toOpaque()
        alive.add(1, ordering: .relaxed)
        let result = pthread_create(&thread, &attributes, { context in
            let start = Unmanaged<Start>.fromOpaque(context!).takeRetainedValue()
            _ = clinux_thread_set_name(start.name)
            start.body()
            DetachedThread.alive.subtract(1, ordering: .releasing)
            return nil
        }, context)
        if result != 0 {
            alive.subtract(1, ordering: .relaxed)
            Unmanaged<Start>.fromOpaque(context).release()
            throw SystemError("pthread_create \(name)", errno: result)
        }
    }

    /// Ends the process with `status`. While a detached thread still runs, the process leaves
    /// with `_exit` after flushing stdio, skipping exit handlers and library destructors: the
    /// thread may be inside libiio, and libiio's exit handler calls libxml2's `xmlCleanupParser`,
    /// which frees the parser's global state under any thread still using it (libxml2 documents
    /// it as unsafe while other threads use the library). With none running it is `exit`.
    public static func exitProcess(_ status: Int32) -> Never {
        if running > 0 {
            fflush(nil)
            _exit(status)
        }
        exit(status)
    }
}
