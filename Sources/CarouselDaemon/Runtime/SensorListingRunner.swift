import CarouselPosix
import IIOSensors
import Synchronization

/// Runs the `sensors` request's listings off the event loop: each listing
/// (`SensorDiscovery.inventory`, every libiio call of it, which may wait 5 s per call on a
/// remote iiod that stops answering) on a thread of its own that ends with it, its outcome
/// handed back through a mutex-guarded list and an eventfd the loop polls. The loop never
/// waits for a thread; `DaemonCore`'s `SensorListings` bounds how many run, answers the clients
/// and forgets the ones that leave (an outcome is keyed by `SensorListingID`, never by a
/// client's descriptor, so nothing is written for a client that closed meanwhile).
final class SensorListingRunner {
    /// What the threads share with the loop.
    private final class Finished: Sendable {
        let notifier: EventNotifier
        let outcomes = Mutex<[(id: SensorListingID, outcome: SensorListingOutcome)]>([])
        init(notifier: EventNotifier) { self.notifier = notifier }
    }

    /// The threads' name (/proc/PID/task/TID/comm, `top -H`).
    static let threadName = "carouseld-list"
    private let finished: Finished

    /// - Throws: `SystemError` naming `eventfd`.
    init() throws(SystemError) {
        finished = Finished(notifier: try EventNotifier())
    }

    /// Readable while outcomes wait to be taken.
    var pollDescriptor: Int32 { finished.notifier.fd }

    /// Starts listing the sensors of `uri` (`local:`, `ip:HOST`…) on a new thread.
    /// - Returns: nil, or why no thread could be started (`pthread_create`'s errno).
    func start(_ id: SensorListingID, uri: String) -> String? {
        let finished = self.finished
        do throws(SystemError) {
            try DetachedThread.spawn(name: Self.threadName) {
                let outcome: SensorListingOutcome
                do throws(SensorError) {
                    outcome = .listed(json: SensorInfo.jsonArray(try SensorDiscovery.inventory(uri: uri).sensors))
                } catch {
                    outcome = .failed(error.description)
                }
                finished.outcomes.withLock { $0.append((id, outcome)) }
                finished.notifier.signal()
            }
        } catch {
            return error.description
        }
        return nil
    }

    /// The listings that ended since the last call, in the order they ended.
    func takeFinished() -> [(id: SensorListingID, outcome: SensorListingOutcome)] {
        finished.notifier.drain()
        return finished.outcomes.withLock { outcomes in
            defer { outcomes.removeAll() }
            return outcomes
        }
    }
}
