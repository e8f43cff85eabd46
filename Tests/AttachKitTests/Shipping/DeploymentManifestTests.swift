import Foundation
import Testing
@testable import AttachKit

/// The deployment files (deploy/kubernetes, packaging/attachkit-http.service, Dockerfile) agree
/// with the tool: Kubernetes' schema accepts them, each memory limit covers the workers the
/// arguments start at the limits the tool really applies plus the parent, the pods are locked
/// down, and a failed batch shard is a failure Kubernetes sees.
@Suite("Deployment manifests")
struct DeploymentManifestTests {
    static let kubernetes = TestEnvironment.repoRoot.appendingPathComponent("deploy/kubernetes")
    static let manifests = ["http-deployment.yaml", "batch-indexed-job.yaml"].map { kubernetes.appendingPathComponent($0).path }
    static let hasYAML = (try? TestEnvironment.run("python3", ["-c", "import yaml"]))?.status == 0

    /// Memory a parent process may use beside its workers: `attachkit http` holds up to
    /// `HTTPLimits.connections` libmicrohttpd pools of `connectionMemory` each (1,024 × 256 KiB) plus
    /// itself (under 50 MB measured under load); `batch` measured 30 MB on TestMedia, growing with
    /// its input list. Each is rounded up to leave room for the 50 ms between worker memory samples.
    static func parentAllowance(_ command: String) -> Int64 {
        command == "http" ? Int64(HTTPLimits().connections * MicroHTTPDaemon.connectionMemory) + (128 << 20) : 128 << 20
    }

    /// Every document of a YAML file, as JSON (PyYAML reads it).
    static func documents(_ path: String) throws -> [JSONValue] {
        let script = "import json, sys, yaml; print(json.dumps(list(yaml.safe_load_all(open(sys.argv[1])))))"
        let result = try TestEnvironment.run("python3", ["-c", script, path])
        try #require(result.status == 0, "\(result.stderr)")
        return try #require(try JSONValue.parse(result.stdout).arrayValue)
    }

    /// Every workload's pod template (`Deployment`, `Job`) in the manifests.
    static func podTemplates() throws -> [(kind: String, workload: JSONValue)] {
        try manifests.flatMap(documents).compactMap { document in
            guard let kind = document["kind"]?.stringValue, ["Deployment", "Job"].contains(kind) else { return nil }
            return (kind, document)
        }
    }

    /// A Kubernetes quantity of bytes (`2304Mi`, `2Gi`, `512Ki`) as bytes.
    static func bytes(_ quantity: String) throws -> Int64 {
        let units: [(String, Int64)] = [("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10)]
        let unit = try #require(units.first { quantity.hasSuffix($0.0) }, "a binary unit in \(quantity)")
        return try #require(Int64(quantity.dropLast(2))) * unit.1
    }

    /// The value of `--name=VALUE` or `--name VALUE` in an argument list.
    static func option(_ name: String, in arguments: [String]) -> String? {
        if let inline = arguments.last(where: { $0.hasPrefix("--\(name)=") }) { return String(inline.dropFirst(name.count + 3)) }
        guard let index = arguments.lastIndex(of: "--\(name)"), index + 1 < arguments.count else { return nil }
        return arguments[index + 1]
    }

    /// What the workers of `arguments` may use at most, by the tool's own reading of `--jobs` and
    /// `--worker-memory` (its default when absent).
    static func workerMemory(_ arguments: [String]) throws -> Int64 {
        let jobs = try #require(option("jobs", in: arguments).flatMap { Int($0) }, "--jobs is given (its default is the node's cores): \(arguments)")
        let perWorker = try option("worker-memory", in: arguments).map { try WorkerLimits.memoryOption.check(bytes: $0) } ?? WorkerLimits().memoryBytes
        return Int64(jobs) * perWorker
    }

    @Test("Kubernetes' schema accepts every manifest, strictly (and refuses a misspelt field)",
          .enabled(if: TestEnvironment.hasTool("kubernetes-validate"), "needs kubernetes-validate (pip install kubernetes-validate; .ci/run installs it)"))
    func schema() throws {
        let result = try TestEnvironment.run("kubernetes-validate", ["--strict", "--quiet"] + Self.manifests)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let folder = TestEnvironment.temporaryFolder("manifest-schema")
        defer { try? FileManager.default.removeItem(at: folder) }
        let misspelt = folder.appendingPathComponent("service.yaml")
        try "apiVersion: v1\nkind: Service\nmetadata: { name: x }\nspec: { selectr: { app: x } }\n".write(to: misspelt, atomically: true, encoding: .utf8)
        #expect(try TestEnvironment.run("kubernetes-validate", ["--strict", "--quiet", misspelt.path]).status != 0)
    }

    @Test("each pod's memory limit covers --jobs workers at the tool's worker limit plus the parent; requests equal limits",
          .enabled(if: hasYAML, "needs python3 with PyYAML (pip install kubernetes-validate brings it)"))
    func memoryFits() throws {
        let templates = try Self.podTemplates()
        #expect(templates.map(\.kind).sorted() == ["Deployment", "Job"])
        for (kind, workload) in templates {
            let container = try #require(workload["spec"]?["template"]?["spec"]?["containers"]?.arrayValue?.first)
            let arguments = try #require(container["args"]?.arrayValue?.compactMap { $0.stringValue })
            let limit = try Self.bytes(try #require(container["resources"]?["limits"]?["memory"]?.stringValue))
            let needed = try Self.workerMemory(arguments) + Self.parentAllowance(arguments[0])
            #expect(limit >= needed, "\(kind): limit \(limit >> 20) MiB < \(needed >> 20) MiB for \(arguments)")
            #expect(container["resources"]?["requests"]?["memory"] == container["resources"]?["limits"]?["memory"], "\(kind)")
        }
    }

    @Test("pods run as the image's non-root user, read-only, unprivileged, under the runtime's seccomp profile, writing only to volumes",
          .enabled(if: hasYAML, "needs python3 with PyYAML (pip install kubernetes-validate brings it)"))
    func lockedDown() throws {
        let dockerfile = try String(contentsOf: TestEnvironment.repoRoot.appendingPathComponent("Dockerfile"), encoding: .utf8)
        let user = try #require(dockerfile.split(separator: "\n").last { $0.hasPrefix("USER ") }?.dropFirst(5).split(separator: ":").first)
        for (kind, workload) in try Self.podTemplates() {
            let pod = try #require(workload["spec"]?["template"]?["spec"])
            #expect(pod["securityContext"]?["runAsNonRoot"] == .bool(true), "\(kind)")
            #expect(pod["securityContext"]?["runAsUser"]?.intValue == Int(user), "\(kind) runs as the Dockerfile's USER \(user)")
            #expect(pod["securityContext"]?["seccompProfile"]?["type"]?.stringValue == "RuntimeDefault", "\(kind)")
            let container = try #require(pod["containers"]?.arrayValue?.first)
            let security = container["securityContext"]
            #expect(security?["allowPrivilegeEscalation"] == .bool(false), "\(kind)")
            #expect(security?["readOnlyRootFilesystem"] == .bool(true), "\(kind)")
            #expect(security?["capabilities"]?["drop"] == .array([.string("ALL")]), "\(kind)")
            // What the process writes (the spool, TMPDIR for the workers' private folders) is an emptyDir.
            let emptyDirs = Set((pod["volumes"]?.arrayValue ?? []).filter { $0["emptyDir"] != nil }.compactMap { $0["name"]?.stringValue })
            let mounts = (container["volumeMounts"]?.arrayValue ?? []).filter { emptyDirs.contains($0["name"]?.stringValue ?? "") }
            let scratch = Set(mounts.compactMap { $0["mountPath"]?.stringValue })
            let tmp = container["env"]?.arrayValue?.first { $0["name"]?.stringValue == "TMPDIR" }?["value"]?.stringValue
            #expect(tmp.map(scratch.contains) == true, "\(kind): TMPDIR \(tmp ?? "unset") is an emptyDir (\(scratch))")
            let arguments = container["args"]?.arrayValue?.compactMap(\.stringValue) ?? []
            if let spool = Self.option("spool", in: arguments) { #expect(scratch.contains(spool), "\(kind): the spool is an emptyDir") }
        }
    }

    @Test("the service has a disruption budget and a CPU autoscaler aimed at its Deployment",
          .enabled(if: hasYAML, "needs python3 with PyYAML (pip install kubernetes-validate brings it)"))
    func availability() throws {
        let documents = try Self.documents(Self.manifests[0])
        let deployment = try #require(documents.first { $0["kind"]?.stringValue == "Deployment" })
        let labels = try #require(deployment["spec"]?["template"]?["metadata"]?["labels"])
        let budget = try #require(documents.first { $0["kind"]?.stringValue == "PodDisruptionBudget" })
        #expect(budget["spec"]?["selector"]?["matchLabels"] == labels)
        let autoscaler = try #require(documents.first { $0["kind"]?.stringValue == "HorizontalPodAutoscaler" })
        #expect(autoscaler["spec"]?["scaleTargetRef"]?["name"] == deployment["metadata"]?["name"])
        #expect(autoscaler["spec"]?["metrics"]?.arrayValue?.first?["resource"]?["name"]?.stringValue == "cpu")
        #expect((autoscaler["spec"]?["minReplicas"]?.intValue ?? 0) >= 2, "a budget of one unavailable keeps one serving")
    }

    @Test("a failed batch shard fails its index at once, disruptions are not counted, and SIGTERM reaches attachkit",
          .enabled(if: hasYAML, "needs python3 with PyYAML (pip install kubernetes-validate brings it)"))
    func batchFailures() throws {
        let job = try #require(try Self.documents(Self.manifests[1]).first { $0["kind"]?.stringValue == "Job" })
        let spec = try #require(job["spec"])
        let pod = try #require(spec["template"]?["spec"])
        let container = try #require(pod["containers"]?.arrayValue?.first)
        #expect(pod["restartPolicy"]?.stringValue == "Never", "podFailurePolicy needs it")
        #expect(spec["backoffLimitPerIndex"]?.intValue != nil, "FailIndex needs it")
        let rules = try #require(spec["podFailurePolicy"]?["rules"]?.arrayValue)
        let onOne = rules.first { $0["onExitCodes"]?["values"]?.arrayValue?.contains(.number(1)) == true }
        #expect(onOne?["action"]?.stringValue == "FailIndex")
        #expect(onOne?["onExitCodes"]?["containerName"] == container["name"])
        #expect(rules.contains { $0["action"]?.stringValue == "Ignore" && $0["onPodConditions"]?.arrayValue?.first?["type"]?.stringValue == "DisruptionTarget" })
        // attachkit is the container's process (no shell in between to swallow SIGTERM), and the
        // shard count is the Job's completion count, the index its completion index.
        #expect(container["command"] == nil)
        let arguments = try #require(container["args"]?.arrayValue?.compactMap { $0.stringValue })
        let shard = try #require(Self.option("shard", in: arguments)).split(separator: "/")
        #expect(shard.count == 2 && Int(shard[1]) == spec["completions"]?.intValue, "\(shard)")
        let variable = String(shard[0].dropFirst(2).dropLast())
        let source = container["env"]?.arrayValue?.first { $0["name"]?.stringValue == variable }
        #expect(source?["valueFrom"]?["fieldRef"]?["fieldPath"]?.stringValue == "metadata.annotations['batch.kubernetes.io/job-completion-index']")
    }

    @Test("the systemd unit: MemoryMax covers its workers and the server, settings from /etc/default, hardened")
    func systemdUnit() throws {
        let unit = try String(contentsOf: TestEnvironment.repoRoot.appendingPathComponent("packaging/attachkit-http.service"), encoding: .utf8)
        let settings = Dictionary(unit.split(separator: "\n").filter { !$0.hasPrefix("#") && $0.contains("=") }.map { line in
            (String(line.prefix { $0 != "=" }), String(line.drop { $0 != "=" }.dropFirst()))
        }, uniquingKeysWith: { first, _ in first })
        let start = try #require(settings["ExecStart"]).split(separator: " ").map(String.init)
        #expect(start.prefix(2) == ["/usr/bin/attachkit", "http"])
        // systemd's M is 1024-based.
        let memoryMax = try #require(settings["MemoryMax"].flatMap { Int64($0.dropLast()) }) << 20
        let needed = try Self.workerMemory(Array(start.dropFirst())) + Self.parentAllowance("http")
        #expect(memoryMax >= needed, "MemoryMax \(memoryMax >> 20) MiB < \(needed >> 20) MiB")
        #expect(settings["EnvironmentFile"] == "/etc/default/attachkit-http")
        for (key, value) in [("ProtectSystem", "strict"), ("NoNewPrivileges", "yes"), ("PrivateTmp", "yes"), ("DynamicUser", "yes"), ("KillMode", "mixed")] {
            #expect(settings[key] == value, "\(key)=\(value)")
        }
        let spool = try #require(Self.option("spool", in: start))
        #expect(settings["ReadWritePaths"]?.split(separator: " ").contains(Substring(spool)) == true, "the spool is writable")
    }

    @Test("systemd reads the unit without a complaint", .enabled(if: TestEnvironment.hasTool("systemd-analyze"), "needs systemd-analyze (systemd)"))
    func systemdVerifies() throws {
        // verify also checks that ExecStart's binary exists: point it at the one built here.
        let folder = TestEnvironment.temporaryFolder("systemd-verify")
        defer { try? FileManager.default.removeItem(at: folder) }
        let unit = try String(contentsOf: TestEnvironment.repoRoot.appendingPathComponent("packaging/attachkit-http.service"), encoding: .utf8)
        let copy = folder.appendingPathComponent("attachkit-http.service")
        try unit.replacing("/usr/bin/attachkit", with: TestEnvironment.attachkit).write(to: copy, atomically: true, encoding: .utf8)
        let result = try TestEnvironment.run("systemd-analyze", ["verify", "--man=no", copy.path])
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stdout)\(result.stderr)")
    }
}
