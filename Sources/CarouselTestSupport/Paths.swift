#if canImport(Glibc)
import Glibc
#endif
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

    /// A file under `../shared/datasets`, e.g. `dataset("references/butter2_fc5_fs100_accx.csv")`.
    /// When the datasets folder is missing, the calling test gets one failure naming it (and
    /// the path returned does not exist, so what reads it fails cleanly too).
    public static func dataset(_ relativePath: String) -> String {
        let folder = shared + "/datasets"
        if access(folder, F_OK) != 0 {
            let message = "the test datasets are missing: \(folder) does not exist (put the project's shared folder "
                + "beside the repository, or set CAROUSEL_TEST_SHARED)"
            Issue.record(Comment(rawValue: message))
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
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return packageRoot + "/.build/debug" }
        let exe = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var parts = exe.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        parts.removeLast()
        // swift-testing runs inside `<name>PackageTests.xctest`; on Linux that is the file itself.
        return parts.joined(separator: "/")
    }()

    /// The path of a built executable product, e.g. `product("carouselctl")`.
    public static func product(_ name: String) -> String { productsDirectory + "/" + name }
}
