import CarouselPosix
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing

/// Locations the tests need, found without Foundation.
public enum TestPaths {
    /// The package root (the folder holding Package.swift), derived from this source file's path.
    public static let packageRoot: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        // …/Sources/CarouselTestSupport/Paths.swift → drop three components.
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }()

    /// `../shared` beside the repository (the datasets, references and seeds). CI lays it there
    /// too; `CAROUSEL_TEST_SHARED` names another folder.
    public static var shared: String {
        if let path = getenv("CAROUSEL_TEST_SHARED") { return String(cString: path) }
        return packageRoot + "/../shared"
    }

    /// `../shared/datasets`: the recorded datasets and reference outputs.
    public static var datasets: String { shared + "/datasets" }

    /// A file under `../shared/datasets`, e.g. `dataset("references/butter2_fc5_fs100_accx.csv")`.
    ///
    /// Without the datasets folder, a run gives ONE failure naming it, whatever the filter: the
    /// first test that asks records it, and every later one is cancelled (reported as skipped)
    /// with a reason that points at that failure. Failing every such test would bury the cause
    /// under dozens of identical failures; skipping them all would let the run pass.
    /// - Throws: the cancellation of the calling test when the folder is missing.
    public static func dataset(_ relativePath: String) throws -> String {
        let folder = datasets
        if access(folder, F_OK) != 0 {
            let message = "the test datasets are missing: \(folder) does not exist (put the project's shared folder "
                + "beside the repository, or set CAROUSEL_TEST_SHARED)"
            if MissingDatasets.claimTheReport() {
                Issue.record(Comment(rawValue: message))
            }
            #if compiler(>=6.1)
            try Test.cancel(Comment(rawValue: "\(message); reported as a failure by the first test that needed it"))
            #else
            // Swift 6.0's Testing (Debian 13's swiftlang) cannot cancel a test: there, each later
            // test fails with this shorter error instead.
            throw MissingDatasetsError(description: "the test datasets are missing (\(folder)): see the first failure")
            #endif
        }
        return folder + "/" + relativePath
    }

    /// A file under `Tests/Fixtures`.
    public static func fixture(_ relativePath: String) -> String {
        packageRoot + "/Tests/Fixtures/" + relativePath
    }

    /// The folder holding the built products (`carouseld`, `carouselctl`): the test runner's own
    /// folder, since SwiftPM puts the test bundle beside the executables it builds.
    public static let productsDirectory: String = {
        guard let exe = RunningExecutable.path() else { return packageRoot + "/.build/debug" }
        var parts = exe.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        parts.removeLast()
        // swift-testing runs inside `<name>PackageTests.xctest`; on Linux that is the file itself.
        return parts.joined(separator: "/")
    }()

    /// The path of a built executable product, e.g. `product("carouselctl")`.
    public static func product(_ name: String) -> String { productsDirectory + "/" + name }
}

/// Which test reports the missing datasets folder: the first to ask, exactly once per process
/// (tests run in parallel).
private enum MissingDatasets {
    static let reported = Mutex(false)

    /// True for the first caller only.
    static func claimTheReport() -> Bool {
        reported.withLock { done in
            defer { done = true }
            return !done
        }
    }
}

#if !compiler(>=6.1)
/// What a test that needs the datasets throws when they are missing and the toolchain (Swift 6.0)
/// has no `Test.cancel`.
struct MissingDatasetsError: Error, CustomStringConvertible {
    let description: String
}
#endif
