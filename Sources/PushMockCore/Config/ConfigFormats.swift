/// The configuration file's formats of devices, faults and activity types, which the inspection
/// API's bodies share (`PUT /api/v1/devices/{token}`, `POST /api/v1/faults`,
/// `PUT /api/v1/activity-types/{name}`): read strictly, every error naming the path.
extension DeviceRecord {
    /// A device record; an `unregistered` one without `unregisteredAt` is unregistered since `now`.
    public init(config device: ConfigObject, now: Int64) throws(ConfigError) {
        var device = device
        var record = DeviceRecord()
        record.bundleID = try device.string("bundleId")
        record.fcmProject = try device.string("project")
        let attributesType = try device.string("attributesType")
        switch try device.string("liveActivity") {
        case nil:
            if attributesType != nil { throw device.error("attributesType", "goes with liveActivity: pushToStart") }
        case "pushToStart":
            record.liveActivity = .pushToStart(attributesType: attributesType)
        case "activity":
            if attributesType != nil { throw device.error("attributesType", "goes with liveActivity: pushToStart") }
            record.liveActivity = .activity
        case let other?:
            throw device.error("liveActivity", "must be pushToStart or activity, got \(other)")
        }
        if let text = try device.string("environment") {
            guard let environment = APNSEnvironment(rawValue: text) else { throw device.error("environment", "must be sandbox or production") }
            record.environment = environment
        }
        switch try device.string("state") ?? "active" {
        case "active": record.state = .active
        case "expired": record.state = .expired
        case "unregistered":
            let since = try device.int("unregisteredAt", in: 0...((1 << 53) - 1)) ?? Int(now)
            record.state = .unregistered(sinceMilliseconds: Int64(since))
        case let other:
            throw device.error("state", "must be active, unregistered or expired, got \(other)")
        }
        _ = try device.int("unregisteredAt", in: 0...((1 << 53) - 1))
        record.lastActiveMilliseconds = try device.int("lastActiveAt", in: 0...((1 << 53) - 1)).map(Int64.init)
        record.appRunning = try device.bool("appRunning")
        try device.finish()
        self = record
    }
}

extension ActivityTypeDeclaration {
    /// An activity type declaration (`activityTypes.Name` in the file, `PUT /api/v1/activity-types/{name}`).
    public init(name: String, config body: JSONValue, file: String, path: String) throws(ConfigError) {
        guard ActivityTypeDeclaration.isTypeName(name) else {
            throw ConfigObject.error(file, path, "a type name is a Swift identifier starting with a capital letter (the attributes-type of a start)")
        }
        do {
            self = try ActivityTypeDeclaration(json: body)
        } catch {
            throw ConfigObject.error(file, error.path.isEmpty ? path : "\(path).\(error.path)", error.message)
        }
    }
}

extension FaultRule {
    /// A fault rule; without an `id`, it is `config-<index + 1>`.
    public init(config object: ConfigObject, index: Int) throws(ConfigError) {
        var object = object
        var match = FaultRule.Match()
        if var matchObject = try object.object("match") {
            if let service = try matchObject.string("service") {
                guard Delivery.Service.all.map(\.rawValue).contains(service) else {
                    throw matchObject.error(
                        "service", "must be one of \(Delivery.Service.all.map(\.rawValue).joined(separator: ", ")), got \(service)")
                }
                match.service = Delivery.Service(rawValue: service)
            }
            match.path = try matchObject.string("path")
            match.token = try matchObject.string("token")
            match.topic = try matchObject.string("topic")
            match.project = try matchObject.string("project")
            try matchObject.finish()
        }
        let action = try Self.action(in: &object)
        var sequence: [Action?]?
        if let steps = try object.objects("sequence") {
            guard action == nil else {
                throw object.error(
                    "sequence", "takes the place of the action: give either a sequence or one of reject, delayMilliseconds, goAway, resetStream")
            }
            guard (1...100).contains(steps.count) else { throw object.error("sequence", "must have 1 to 100 steps, got \(steps.count)") }
            sequence = try steps.map { step throws(ConfigError) -> Action? in
                var step = step
                let accept = try step.bool("accept")
                let stepAction = try Self.action(in: &step)
                try step.finish()
                switch (accept, stepAction) {
                case (true?, nil): return nil
                case (nil, let stepAction?): return stepAction
                case (false?, _): throw step.error("accept", "can only be true (leave it out otherwise)")
                default:
                    throw ConfigObject.error(
                        step.file, step.path,
                        "each step is exactly one of: reject {status, reason}, delayMilliseconds, goAway, resetStream: true, or accept: true")
                }
            }
        } else if action == nil {
            throw ConfigObject.error(
                object.file, object.path,
                "exactly one action is required: reject {status, reason}, delayMilliseconds, goAway, resetStream: true, or a sequence of them")
        }
        let id = try object.string("id") ?? "config-\(index + 1)"
        guard !id.isEmpty,
            id.utf8.allSatisfy({
                $0 == 0x2D || $0 == 0x2E || $0 == 0x5F || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
            })
        else {
            throw object.error("id", "must be letters, digits, '.', '-' or '_' (it appears in URLs), got \(id)")
        }
        let count = try object.int("count", in: 1...((1 << 53) - 1))
        let probability = try object.double("probability")
        if let probability, !(0...1).contains(probability) {
            throw object.error("probability", "must be between 0 and 1")
        }
        let target: Target?
        switch try object.string("target") {
        case nil: target = nil
        case "upstream": target = .upstream
        case let other?: throw object.error("target", "must be upstream (the relay upstream's answer), or left out for PushMock's own; got \(other)")
        }
        try object.finish()
        if let sequence {
            // (Its count is its steps; every matching request takes the next one.)
            if count != nil { throw object.error("count", "does not go with a sequence: a sequence fires once for each of its steps") }
            if probability != nil { throw object.error("probability", "does not go with a sequence: each matching request takes the next step") }
            self.init(id: id, match: match, sequence: sequence)
        } else if let action {
            self.init(id: id, match: match, action: action, count: count, probability: probability)
        } else {
            throw ConfigObject.error(object.file, object.path, "exactly one action is required")
        }
        self.target = target
        if let problem = upstreamProblem { throw ConfigObject.error(object.file, object.path, problem) }
    }

    /// The one action `object` names (reject, delayMilliseconds, goAway, resetStream), nil when it
    /// names none; more than one is an error.
    static func action(in object: inout ConfigObject) throws(ConfigError) -> Action? {
        var actions: [Action] = []
        if var reject = try object.object("reject") {
            guard let reason = try reject.string("reason") else { throw ConfigObject.error(reject.file, reject.path, "reason is required") }
            guard !reason.isEmpty else { throw reject.error("reason", "must not be empty") }
            // Final statuses only: a 1xx answer cannot carry the rejection's body.
            let status = try reject.int("status", in: 200...599) ?? Self.status(of: reason)
            // Nor one that has no body: the rejection's reason is its body.
            if let status, [204, 205, 304].contains(status) {
                throw reject.error("status", "must not be \(status): a \(status) answer has no body, and the rejection's reason is its body")
            }
            guard let status else {
                throw ConfigObject.error(
                    reject.file, reject.path,
                    "status is required for a reason that is neither an APNs reason nor an FCM error code PushMock knows (\(reason))")
            }
            // A Retry-After for the sender's backoff (a day at most).
            let retryAfter = try reject.int("retryAfter", in: 0...86_400)
            try reject.finish()
            actions.append(.reject(status: status, reason: reason, retryAfter: retryAfter))
        }
        if let milliseconds = try object.int("delayMilliseconds", in: 0...600_000) {
            actions.append(.delay(milliseconds: milliseconds))
        }
        if var delay = try object.object("delay") {
            actions.append(.delayDrawn(try Self.distribution(in: &delay)))
        }
        if let reason = try object.string("goAway") {
            actions.append(.goAway(reason: reason))
        }
        if let reset = try object.bool("resetStream") {
            guard reset else { throw object.error("resetStream", "can only be true (leave it out otherwise)") }
            actions.append(.resetStream)
        }
        guard actions.count <= 1 else {
            throw ConfigObject.error(
                object.file, object.path,
                "exactly one action is required: reject {status, reason}, delayMilliseconds, delay {distribution, …}, goAway, or resetStream: true")
        }
        return actions.first
    }

    /// A drawn delay: `{"distribution": "uniform", "minMilliseconds", "maxMilliseconds"}`,
    /// `{"distribution": "normal", "meanMilliseconds", "standardDeviationMilliseconds"}` or
    /// `{"distribution": "logNormal", "medianMilliseconds", "sigma"}`.
    static func distribution(in object: inout ConfigObject) throws(ConfigError) -> DelayDistribution {
        let spelled =
            "uniform {minMilliseconds, maxMilliseconds}, normal {meanMilliseconds, standardDeviationMilliseconds}"
            + " or logNormal {medianMilliseconds, sigma}"
        guard let name = try object.string("distribution") else {
            throw ConfigObject.error(object.file, object.path, "distribution is required: \(spelled)")
        }
        let range = 0...DelayDistribution.limit
        let distribution: DelayDistribution
        switch name {
        case "uniform":
            guard let low = try object.int("minMilliseconds", in: range), let high = try object.int("maxMilliseconds", in: range) else {
                throw ConfigObject.error(object.file, object.path, "a uniform delay takes minMilliseconds and maxMilliseconds")
            }
            guard low <= high else { throw object.error("maxMilliseconds", "must not be below minMilliseconds (\(low))") }
            distribution = .uniform(min: low, max: high)
        case "normal":
            guard let mean = try object.int("meanMilliseconds", in: range),
                let deviation = try object.int("standardDeviationMilliseconds", in: range)
            else {
                throw ConfigObject.error(object.file, object.path, "a normal delay takes meanMilliseconds and standardDeviationMilliseconds")
            }
            distribution = .normal(mean: mean, standardDeviation: deviation)
        case "logNormal":
            guard let median = try object.int("medianMilliseconds", in: 1...DelayDistribution.limit),
                let sigma = try object.double("sigma", in: 0...5)
            else {
                throw ConfigObject.error(object.file, object.path, "a logNormal delay takes medianMilliseconds (1 or more) and sigma (0 to 5)")
            }
            distribution = .logNormal(median: median, sigma: sigma)
        default:
            throw object.error("distribution", "must be \(spelled); got \(name)")
        }
        try object.finish()
        return distribution
    }

    /// The status the service answers `reason` with: an APNs reason's or an FCM error code's
    /// (nil: neither, so a rule must name its status).
    public static func status(of reason: String) -> Int? {
        APNSRejectionReason.named(reason)?.status ?? FCMErrorCode(rawValue: reason)?.httpStatus
    }
}
