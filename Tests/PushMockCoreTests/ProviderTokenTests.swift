import Crypto
import PushMockCore
import Testing

@Suite("APNs provider tokens")
struct ProviderTokenTests {
    let key = P256.Signing.PrivateKey()

    @Test("a signed token parses and verifies, in raw r||s and in DER")
    func signAndVerify() throws {
        for der in [false, true] {
            let jwt = try ProviderToken.sign(keyID: "ABC123DEFG", teamID: "TEAM123456", issuedAt: 1_767_225_600, key: key, der: der)
            let token = try ProviderToken.parse(Substring(jwt))
            #expect(token.keyID == "ABC123DEFG")
            #expect(token.teamID == "TEAM123456")
            #expect(token.issuedAt == 1_767_225_600)
            #expect(token.signature.count == 64 || der)
            try token.verify(with: key.publicKey)
            #expect(throws: ProviderToken.Problem.badSignature) { try token.verify(with: P256.Signing.PrivateKey().publicKey) }
        }
    }

    @Test("a tampered claim fails verification")
    func tampered() throws {
        let jwt = try ProviderToken.sign(keyID: "ABC123DEFG", teamID: "TEAM123456", issuedAt: 1_767_225_600, key: key)
        let parts = jwt.split(separator: ".")
        let forged = parts[0] + "." + Base64URL.encode(Array(#"{"iss":"TEAM123456","iat":1767229200}"#.utf8)) + "." + parts[2]
        let token = try ProviderToken.parse(Substring(forged))
        #expect(throws: ProviderToken.Problem.badSignature) { try token.verify(with: key.publicKey) }
    }

    @Test(
        "malformed tokens name their problem",
        arguments: [
            ("a.b", ProviderToken.Problem.notThreeSegments),
            ("a..c", .notThreeSegments),
            ("a!.b.c", .badBase64),
            ("\(Base64URL.encode(Array("[]".utf8))).e30.c2ln", .headerNotJSON),
            ("\(Base64URL.encode(Array(#"{"alg":"RS256","kid":"K"}"#.utf8))).e30.c2ln", .algorithmNotES256),
            ("\(Base64URL.encode(Array(#"{"alg":"ES256"}"#.utf8))).e30.c2ln", .missingKeyID),
            ("\(Base64URL.encode(Array(#"{"alg":"ES256","kid":"K"}"#.utf8))).\(Base64URL.encode(Array(#"{"iat":1}"#.utf8))).c2ln", .missingIssuer),
            (
                "\(Base64URL.encode(Array(#"{"alg":"ES256","kid":"K"}"#.utf8))).\(Base64URL.encode(Array(#"{"iss":"T","iat":"1.5"}"#.utf8))).c2ln",
                .missingIssuedAt
            ),
            (
                "\(Base64URL.encode(Array(#"{"alg":"ES256","kid":"K"}"#.utf8))).\(Base64URL.encode(Array(#"{"iss":"T","iat":-1}"#.utf8))).c2ln",
                .missingIssuedAt
            ),
            (
                "\(Base64URL.encode(Array(#"{"alg":"ES256","kid":"K"}"#.utf8))).\(Base64URL.encode(Array(#"{"iss":"T","iat":-0.5}"#.utf8))).c2ln",
                .missingIssuedAt
            ),
            (
                "\(Base64URL.encode(Array(#"{"alg":"ES256","kid":"K"}"#.utf8))).\(Base64URL.encode(Array(#"{"iss":"T","iat":1e400}"#.utf8))).c2ln",
                .missingIssuedAt
            ),
            (
                "\(Base64URL.encode(Array(#"{"alg":"ES256","kid":"K"}"#.utf8))).\(Base64URL.encode(Array(#"{"iss":"T","iat":true}"#.utf8))).c2ln",
                .missingIssuedAt
            ),
            (
                "\(Base64URL.encode(Array(#"{"alg":"ES256","kid":"K"}"#.utf8))).\(Base64URL.encode(Array(#"{"iss":"T","iat":"12a"}"#.utf8))).c2ln",
                .missingIssuedAt
            ),
        ])
    func malformed(_ jwt: String, _ problem: ProviderToken.Problem) {
        #expect(throws: problem) { try ProviderToken.parse(Substring(jwt)) }
    }

    @Test(
        "a fractional iat (PyAPNs2 signs time.time()) is whole seconds rounded down, and its milliseconds",
        arguments: [
            ("1795674294.67", Int64(1_795_674_294), Int64(1_795_674_294_670)),
            ("1795674294", 1_795_674_294, 1_795_674_294_000),
            ("\"1795674294\"", 1_795_674_294, 1_795_674_294_000),
            ("1.5", 1, 1_500),
            ("1.5e3", 1_500, 1_500_000),
            ("0.0", 0, 0),
        ])
    func fractionalIssuedAt(_ iat: String, _ seconds: Int64, _ milliseconds: Int64) throws {
        let claims = Base64URL.encode(Array(#"{"iss":"T","iat":\#(iat)}"#.utf8))
        let token = try ProviderToken.parse(Substring("\(Base64URL.encode(Array(#"{"alg":"ES256","kid":"K"}"#.utf8))).\(claims).c2ln"))
        #expect(token.issuedAt == seconds)
        #expect(token.issuedAtMilliseconds == milliseconds)
    }

    @Test("the verifier caches results until the registry changes")
    func verifierCache() throws {
        var registry = APNSCredentialRegistry()
        registry.add(APNSSigningKey(keyID: "ABC123DEFG", teamID: "TEAM123456", publicKey: key.publicKey))
        let verifier = ProviderTokenVerifier(registry: registry)
        let jwt = Substring(try ProviderToken.sign(keyID: "ABC123DEFG", teamID: "TEAM123456", issuedAt: 1, key: key))
        guard case .valid = verifier.verify(jwt) else {
            Issue.record("expected valid")
            return
        }
        let generation = verifier.generation
        verifier.update { $0 = APNSCredentialRegistry() }
        #expect(verifier.generation != generation)
        guard case .unknownKey(let keyID, _) = verifier.verify(jwt) else {
            Issue.record("expected unknown key after removal")
            return
        }
        #expect(keyID == "ABC123DEFG")
    }
}

@Suite("Faults")
struct FaultPlanTests {
    @Test("a counted rule fires that many times, then is gone")
    func counted() {
        let plan = FaultPlan(rules: [
            FaultRule(id: "twice", match: .init(service: .apns, token: "ABCD"), action: .reject(status: 429, reason: "TooManyRequests"), count: 2)
        ])
        #expect(plan.fire(service: .fcm, path: "/", token: "abcd", topic: nil) == nil)
        #expect(plan.fire(service: .apns, path: "/3/device/abcd", token: "abcd", topic: nil)?.id == "twice")
        #expect(plan.rules.first?.hits == 1, "a rule counts what it fired for")
        #expect(plan.rules.first?.count == 1)
        #expect(plan.fire(service: .apns, path: "/3/device/abcd", token: "abcd", topic: nil)?.hits == 2)
        #expect(plan.fire(service: .apns, path: "/3/device/abcd", token: "abcd", topic: nil) == nil)
        #expect(plan.rules.isEmpty)
    }

    @Test("an uncounted rule counts its hits and stays")
    func hits() {
        let plan = FaultPlan(rules: [FaultRule(id: "always", action: .resetStream)])
        for _ in 0..<3 { _ = plan.fire(service: .apns, path: "/", token: nil, topic: nil) }
        #expect(plan.rules.map(\.hits) == [3])
    }

    @Test("probabilities are repeatable with a seed")
    func seeded() {
        func run(seed: UInt64) -> [Bool] {
            let plan = FaultPlan(rules: [FaultRule(id: "half", action: .resetStream, probability: 0.5)], seed: seed)
            return (0..<200).map { _ in plan.fire(service: .apns, path: "/", token: nil, topic: nil) != nil }
        }
        let first = run(seed: 42)
        #expect(first == run(seed: 42))
        #expect(first != run(seed: 43))
        let hits = first.filter { $0 }.count
        #expect((60...140).contains(hits), "about half of 200, got \(hits)")
    }

    @Test("with a fleet's count a counted rule fires only on a claimed fire; a spent one is dropped, a lost one kept, an unused win reported")
    func fleetClaims() {
        let rule = FaultRule(id: "once", match: .init(service: .apns, token: "abcd"), action: .reject(status: 503, reason: "Shutdown"), count: 2)
        let plan = FaultPlan(rules: [rule])
        plan.countsAcrossFleet = true
        #expect(plan.claimable(service: .apns, path: "/3/device/abcd").map(\.fleetKey) == ["once#configured"])
        #expect(plan.claimable(service: .fcm, path: "/v1/projects/p/messages:send").isEmpty)
        #expect(plan.fire(service: .apns, path: "/3/device/abcd", token: "abcd", topic: nil) == nil, "never without a claim")

        let won = FaultClaims(["once#configured": .won(remaining: 0)])
        #expect(plan.fire(service: .apns, path: "/3/device/abcd", token: "abcd", topic: nil, claims: won)?.id == "once")
        #expect(won.won.map(\.used) == [true])
        #expect(plan.rules.first?.count == 0, "kept at 0 until the fleet says it is spent")

        let unmatched = FaultClaims(["once#configured": .won(remaining: 1)])
        #expect(plan.fire(service: .apns, path: "/3/device/ffff", token: "ffff", topic: nil, claims: unmatched) == nil)
        #expect(unmatched.won.map(\.used) == [false], "a fire the push did not use is given back")

        #expect(
            plan.fire(
                service: .apns, path: "/3/device/abcd", token: "abcd", topic: nil, claims: FaultClaims(["once#configured": .lost(spent: false)]))
                == nil)
        #expect(plan.rules.count == 1, "fires taken elsewhere may come back: kept")
        #expect(
            plan.fire(service: .apns, path: "/3/device/abcd", token: "abcd", topic: nil, claims: FaultClaims(["once#configured": .lost(spent: true)]))
                == nil)
        #expect(plan.rules.isEmpty, "spent: gone")

        plan.reset(rules: [rule])
        #expect(
            plan.fire(service: .apns, path: "/3/device/abcd", token: "abcd", topic: nil, claims: FaultClaims(["once#configured": .unavailable]))?.id
                == "once")
        #expect(plan.rules.first?.count == 1, "no counter: counted here, as without a fleet")
        #expect(plan.removeSpent(fleetKey: "once#configured") && plan.rules.isEmpty)
    }

    @Test("rules match by path prefix, topic and project")
    func matching() {
        let match = FaultRule.Match(service: .apns, path: "/3/device/", topic: "com.example.app")
        #expect(match.matches(service: .apns, path: "/3/device/ab", token: nil, topic: "com.example.app", project: nil))
        #expect(!match.matches(service: .apns, path: "/4/broadcasts/", token: nil, topic: "com.example.app", project: nil))
        #expect(!match.matches(service: .apns, path: "/3/device/ab", token: nil, topic: "com.other", project: nil))
        #expect(FaultRule.Match(project: "p").matches(service: .fcm, path: "/v1/projects/p/messages:send", token: nil, topic: nil, project: "p"))
    }
}
