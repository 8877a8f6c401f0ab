import CarouselProtocol
import CarouselTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The fault tests' `CountingWatcher` counts every line that has arrived, also the lines that
/// came in one burst behind another: one `recv` takes them all, after which the socket is no
/// longer readable, so they must be taken from the client's buffer, not waited for.
@Suite struct CountingWatcherTests {
    /// What the daemon writes to a watcher when the sensor is unplugged while the carousel
    /// scrolls: the STATE of the frame before, the SENSOR, then the STATEs of the settling
    /// carousel and the INDEX of the card it rests on; then nothing more.
    static let unplugBurst = [
        #"{"class":"STATE","seq":7,"phase":"tilting","sensor":"ok"}"#,
        #"{"class":"SENSOR","status":"absent","name":"iio"}"#,
        #"{"class":"STATE","seq":8,"phase":"decelerating","sensor":"absent"}"#,
        #"{"class":"STATE","seq":9,"phase":"idle","sensor":"absent"}"#,
        #"{"class":"INDEX","index":1,"previous":0}"#,
    ]

    @Test func drainCountsEveryLineOfABurstThatArrivedInOneRead() throws {
        var fds: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0)
        let daemonSide = SocketClient(fd: fds[1])
        let watcher = CountingWatcher(subscribed: SocketClient(fd: fds[0]))
        // One write, so the watcher's first read takes the whole burst.
        try daemonSide.sendRaw(Array(Self.unplugBurst.map { $0 + "\n" }.joined().utf8))

        try watcher.drain(timeoutSeconds: 2)

        #expect(watcher.sensorStatuses == ["absent"], "read: \(watcher.client.transcript); unread: \(watcher.client.bufferedLines)")
        #expect(watcher.count("STATE") == 3)
        #expect(watcher.count("INDEX") == 1)
        #expect(watcher.lastState?["seq"] == .number(9))
        #expect(watcher.client.transcript == Self.unplugBurst)
        #expect(watcher.client.bufferedLines.isEmpty)
        #expect(!watcher.closed)
    }
}
