import AttachKit
import Foundation
let ledger = AccessLedger(scopes: [try! AccessScope.folder("/")])
for path in CommandLine.arguments.dropFirst() {
    do {
        let h = try ledger.acquire(path)
        defer {}
        do { let info = try Prober().probe(h); h.release(); print(info.json.serialized) }
        catch { h.release(); print("{\"path\":\"\(path)\",\"error\":\"\(error)\"}") }
    } catch { print("\(path): \(error)") }
}
