import CarouselService
#if canImport(Glibc)
import Glibc
#endif

/// What a `--help` text may cite: the reference pages where the Debian package installs them
/// (`/usr/share/doc/carouseld/NAME.md.gz`, `…/examples/`) and man pages, never the source
/// tree's docs/, which an installed system does not have. (An example may still run a command
/// "in a checkout of the source", such as carouseld's on configs/demo.conf.)
public enum HelpReferences {
    /// The problems of `help`, empty when there are none: each repository path it names
    /// (`docs/…`), and each path under `ReferencePages.packagedDirectory` that `make install-doc`
    /// would not install (README.md and docs/*.md compressed, docs/examples/ as is).
    public static func problems(in help: String) -> [String] {
        let packagedDirectory = ReferencePages.packagedDirectory
        var problems: [String] = []
        let words = help.split(whereSeparator: { " \n\t()'\",;".contains($0) }).map { word in
            String(word.reversed().drop { ".:".contains($0) }.reversed())
        }
        for word in words {
            if word.hasPrefix("docs/") { problems.append("names the repository path \(word)") }
            guard word.hasPrefix(packagedDirectory + "/") else { continue }
            let name = String(word.dropFirst(packagedDirectory.count + 1))
            let source: String
            if name == "examples/" {
                source = "docs/examples"
            } else if name.hasSuffix(".md.gz"), !name.contains("/") {
                let page = String(name.dropLast(3))
                source = page == "README.md" ? page : "docs/" + page
            } else {
                problems.append("names \(word), which make install-doc does not install")
                continue
            }
            if access(TestPaths.packageRoot + "/" + source, F_OK) != 0 {
                problems.append("names \(word), but there is no \(source) to install there")
            }
        }
        return problems
    }
}
