import MotionFusion
import Testing
@testable import IIOSensors

/// The worker-to-loop hand-off of a remote sensor (`SampleHandOff`): bounded, oldest dropped
/// and counted, the newest state only.
struct SampleHandOffTests {
    static func sample(_ t: Int64) -> IMUSample { IMUSample(timestampNanoseconds: t, accel: Vector3(0, 0, -9.81)) }

    let initial = SampleHandOff.State(status: .absent, message: "not started", name: "iio")

    @Test func takesEverythingInOrderOnce() {
        let handOff = SampleHandOff(initial: initial, sampleCapacity: 8)
        handOff.push([Self.sample(1), Self.sample(2)])
        handOff.push([Self.sample(3)])
        let batch = handOff.take()
        #expect(batch.samples.map(\.timestampNanoseconds) == [1, 2, 3])
        #expect(batch.droppedSamples == 0)
        #expect(batch.state == initial)
        #expect(handOff.take().samples.isEmpty)
    }

    @Test func dropsTheOldestBeyondCapacityAndCountsThem() {
        let handOff = SampleHandOff(initial: initial, sampleCapacity: 4)
        handOff.push((1...3).map(Self.sample))
        handOff.push((4...7).map(Self.sample))  // 7 waiting, capacity 4: 1, 2, 3 go
        let batch = handOff.take()
        #expect(batch.samples.map(\.timestampNanoseconds) == [4, 5, 6, 7])
        #expect(batch.droppedSamples == 3)
        // The count is per take.
        handOff.push([Self.sample(8)])
        #expect(handOff.take().droppedSamples == 0)
    }

    @Test func keepsTheNewestStateAndTheLastLogLines() {
        let handOff = SampleHandOff(initial: initial, logCapacity: 2)
        let ok = SampleHandOff.State(status: .ok, message: nil, name: "bmi160", rateHz: 100,
                                     deviceName: "bmi160", devicePath: "ip:127.0.0.1:30431/iio:device0")
        handOff.publish(SampleHandOff.State(status: .error, message: "timed out", name: "bmi160"))
        handOff.publish(ok)
        handOff.log(.info, "a")
        handOff.log(.warning, "b")
        handOff.log(.error, "c")
        let batch = handOff.take()
        #expect(batch.state == ok)
        #expect(batch.logs.map(\.text) == ["b", "c"])
        #expect(batch.logs.map(\.level) == [.warning, .error])
        #expect(handOff.take().state == ok)
    }

    /// A worker thread pushing while the loop takes: every sample arrives once, in order.
    @Test func concurrentPushAndTakeLoseNothingWithinCapacity() async {
        let handOff = SampleHandOff(initial: initial, sampleCapacity: 100_000)
        let pusher = Task.detached {
            for t in Int64(0)..<20_000 { handOff.push([SampleHandOffTests.sample(t)]) }
        }
        var seen: [Int64] = []
        while seen.count < 20_000 {
            seen += handOff.take().samples.map(\.timestampNanoseconds)
            await Task.yield()
        }
        await pusher.value
        #expect(seen == Array(0..<20_000))
    }
}
