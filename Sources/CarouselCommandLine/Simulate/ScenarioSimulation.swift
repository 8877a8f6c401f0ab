/// `carouselctl simulate` on scenario text instead of a file: the scenario reader and the
/// simulation behind one public call, for the scenario fuzz target (Fuzz/FuzzScenario) and any
/// tool that holds a scenario in memory.
public enum ScenarioSimulation {
    /// A scenario that was read and validated, before it runs.
    public struct Plan: Sendable, Equatable {
        /// Frames the run prints (one output line each).
        public var frameCount: Int
        /// Input events, in time order.
        public var eventCount: Int
        /// The most items any frame can show (the largest over the configuration and every event
        /// that changes the geometry, count or style): frames × this bounds the run's output.
        public var visibleItemBound: Int
    }

    /// Why a scenario was refused: `carouselctl simulate` prints `description` and exits 65.
    public struct InputError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The JSON path of the first problem (`events[2].t`), empty for a JSON syntax error.
        public var path: String
        /// What is wrong there (a syntax error names the line and column).
        public var message: String
        /// `path: message` (the message alone when there is no path), one line with control
        /// characters shown as `\xNN`: what `carouselctl simulate` prints.
        public var description: String { ScenarioError(path: path, message: message).description }
    }

    /// Reads and validates `text` as a scenario (format: docs/ENGINE.md).
    /// - Throws: `InputError` naming the JSON path of the first problem.
    public static func plan(_ text: String) throws(InputError) -> Plan {
        let scenario = try read(text)
        return Plan(frameCount: scenario.frames.count, eventCount: scenario.events.count,
                    visibleItemBound: scenario.visibleItemBound)
    }

    /// Reads `text` as a scenario and runs it, passing each frame's JSON object (one line,
    /// without the newline) to `emit` in time order: exactly what `carouselctl simulate` prints.
    /// - Throws: `InputError` naming the JSON path of the first problem; nothing is emitted then.
    public static func run(_ text: String, emit: (String) -> Void) throws(InputError) {
        SimulationRunner.run(try read(text), emit: emit)
    }

    private static func read(_ text: String) throws(InputError) -> Scenario {
        do {
            return try Scenario.parse(text)
        } catch {
            throw InputError(path: error.path, message: error.message)
        }
    }
}

extension Scenario {
    /// The most items one frame can show under the configuration and each event's changes
    /// (applied as the reader applied them when it validated the scenario).
    var visibleItemBound: Int {
        var current = configuration
        var bound = current.maximumVisibleItemCount
        for event in events {
            // Cannot throw: the reader applied and validated the same events in the same order.
            try? Scenario.apply(event, to: &current, path: "")
            bound = max(bound, current.maximumVisibleItemCount)
        }
        return bound
    }
}
