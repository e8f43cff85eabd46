import AttachKit

/// A plain-text table with aligned columns, for people (machines get `--json`). Every cell and
/// note is escaped (``HumanText/escape(_:)``), so a file name cannot add a line or hide another.
struct Table {
    let headers: [String]
    private(set) var rows: [[String]] = []
    /// Lines printed under a row (diagnostics), indented, not aligned.
    private var notes: [Int: [String]] = [:]

    init(_ headers: [String]) { self.headers = headers }

    mutating func add(_ row: [String], notes rowNotes: [String] = []) {
        rows.append(row.map(HumanText.escape))
        if !rowNotes.isEmpty { notes[rows.count - 1] = rowNotes.map(HumanText.escape) }
    }

    func render() -> HumanText {
        "\(rendered: text())"
    }

    private func text() -> String {
        var widths = headers.map(\.count)
        for row in rows {
            for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            var out = ""
            for (i, cell) in cells.enumerated() {
                let isLast = i == cells.count - 1
                out += isLast ? cell : cell + String(repeating: " ", count: widths[i] - cell.count + 2)
            }
            return out
        }
        var lines = [line(headers), line(widths.map { String(repeating: "-", count: $0) })]
        for (index, row) in rows.enumerated() {
            lines.append(line(row))
            for note in notes[index] ?? [] { lines.append("    " + note) }
        }
        return lines.joined(separator: "\n")
    }
}

/// Human-readable figures.
enum Format {
    static func bytes(_ n: Int64) -> String { ByteCount.text(n) }

    static func seconds(_ s: Double?) -> String {
        guard let s else { return "" }
        return "\((s * 100).rounded() / 100) s"
    }

    static func dimensions(_ w: Int?, _ h: Int?) -> String {
        guard let w, let h else { return "" }
        return "\(w)x\(h)"
    }
}
