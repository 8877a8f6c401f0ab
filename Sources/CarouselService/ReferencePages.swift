import CarouselPosix
#if canImport(Glibc)
import Glibc
#endif

/// Where a program's `--help` sends its reader for a reference page: the installed copy of
/// README.md and docs/*.md, which `make install-doc` writes gzip-compressed into DOCDIR
/// (`PREFIX/share/doc/carouseld`; `/usr/share/doc/carouseld` in the Debian package `carouseld`,
/// which the other packages depend on or recommend), with the scenario examples in its
/// `examples/` folder. The man pages made from the help texts rewrite the same paths to
/// DOCDIR (the Makefile's `MANREFS`).
public struct ReferencePages: Sendable, Equatable {
    /// DOCDIR of the Debian package (`make install PREFIX=/usr`).
    public static let packagedDirectory = "/usr/share/doc/carouseld"

    /// The folder that holds the pages, e.g. `/usr/share/doc/carouseld`.
    public let directory: String

    /// The pages in `directory` (a DOCDIR, as `directory` describes).
    public init(directory: String) {
        self.directory = directory
    }

    /// The pages beside a program at `executablePath` (a resolved path): for a program in
    /// `PREFIX/bin`, `PREFIX/sbin` or `PREFIX/libexec` whose `PREFIX/share/doc/carouseld` is a
    /// folder (an install with another PREFIX, such as `/usr/local`), that folder; otherwise
    /// the package's, so a program run from its build folder names the packaged paths.
    /// - Parameter isDirectory: whether a path is a folder (`stat(2)` by default).
    public init(executablePath: String, isDirectory: (String) -> Bool = ReferencePages.isDirectory) {
        var components = executablePath.split(separator: "/", omittingEmptySubsequences: false)
        if executablePath.hasPrefix("/"), components.count >= 3,
           ["bin", "sbin", "libexec"].contains(components[components.count - 2]) {
            components.removeLast(2)
            let installed = components.joined(separator: "/") + "/share/doc/carouseld"
            if isDirectory(installed) {
                self.init(directory: installed)
                return
            }
        }
        self.init(directory: Self.packagedDirectory)
    }

    /// The pages for the running program (`/proc/self/exe`, which the kernel gives resolved).
    public static let current = ReferencePages(executablePath: RunningExecutable.path() ?? "")

    /// The installed path of a reference page: `page("PROTOCOL.md")` is
    /// `/usr/share/doc/carouseld/PROTOCOL.md.gz`.
    public func page(_ name: String) -> String {
        directory + "/" + name + ".gz"
    }

    /// The folder of the scenario examples (`carouselctl simulate`), with a trailing slash.
    public var examples: String {
        directory + "/examples/"
    }

    /// Whether `path` is a folder (`stat(2)`; false when it cannot be read).
    public static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR
    }
}
