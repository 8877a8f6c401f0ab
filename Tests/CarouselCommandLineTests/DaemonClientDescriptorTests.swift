#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing
@testable import CarouselCommandLine

/// A `DaemonClient` whose connect failed closed its descriptor and then, from `deinit` (the
/// object was whole when `init` threw), closed the same number again: by then it could be a
/// descriptor another thread had just opened, which that thread then read as EBADF (a test
/// running beside `calibration show --socket missing.sock` once failed so reading its
/// configuration). Each failure path now closes it once.
@Suite struct DaemonClientDescriptorTests {
    final class Reader: @unchecked Sendable {
        let path: String
        let stop = Atomic<Bool>(false)
        let badDescriptors = Atomic<Int>(0)
        let reads = Atomic<Int>(0)
        init(path: String) { self.path = path }

        /// Opens, reads and closes `path` until told to stop, counting reads that fail with EBADF.
        func run() {
            var byte: UInt8 = 0
            while !stop.load(ordering: .relaxed) {
                let fd = open(path, O_RDONLY | O_CLOEXEC)
                guard fd >= 0 else { continue }
                if read(fd, &byte, 1) < 0, errno == EBADF { badDescriptors.add(1, ordering: .relaxed) }
                reads.add(1, ordering: .relaxed)
                close(fd)
            }
        }
    }

    @Test func aFailedConnectClosesItsDescriptorOnce() throws {
        let dir = makeTempDirectory("descriptors")
        let path = dir + "/file"
        let fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
        #expect(fd >= 0 && write(fd, "x", 1) == 1)
        close(fd)
        let reader = Reader(path: path)
        var thread = pthread_t()
        let retained = Unmanaged.passRetained(reader).toOpaque()
        #expect(pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            Unmanaged<Reader>.fromOpaque(raw).takeRetainedValue().run()
            return nil
        }, retained) == 0)
        for _ in 0..<20_000 {
            _ = try? DaemonClient(socketPath: dir + "/no.sock", timeoutSeconds: 1)
        }
        reader.stop.store(true, ordering: .relaxed)
        pthread_join(thread, nil)
        #expect(reader.reads.load(ordering: .relaxed) > 0)
        #expect(reader.badDescriptors.load(ordering: .relaxed) == 0)
    }
}
