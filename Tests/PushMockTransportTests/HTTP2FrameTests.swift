import NIOCore
import NIOHPACK
import NIOHTTP2
import PushMockTestSupport
import PushMockTransport
import Testing

@Suite("HTTP/2 frames on the wire are what push clients need")
struct HTTP2FrameTests {
    @Test("a header-only response is one HEADERS frame with END_STREAM and no DATA frame")
    func headerOnlyResponse() async throws {
        try await withListener { listener in
            let client = try await H2FrameClient.connect(port: listener.port, tls: true)
            defer { Task { await client.close() } }
            client.send(streamID: 1, path: "/header-only", body: Array("{}".utf8))
            let frames = try await client.completedStream(1)
            #expect(frames.count == 1)
            guard case .headers(let headers) = frames.first?.payload else {
                Issue.record("expected HEADERS, got \(frames)")
                return
            }
            #expect(headers.endStream)
            #expect(headers.headers.first(name: ":status") == "200")
            #expect(headers.headers.first(name: "x-header-only") == "1")
            #expect(!frames.contains { if case .data = $0.payload { true } else { false } })
        }
    }

    @Test("SETTINGS_MAX_CONCURRENT_STREAMS can change mid-connection and the client sees it")
    func maxConcurrentStreamsChange() async throws {
        var settings = PushMockTransport.HTTP2Settings()
        settings.maxConcurrentStreams = 1
        try await withListener(settings: settings) { listener in
            let client = try await H2FrameClient.connect(port: listener.port, tls: true)
            defer { Task { await client.close() } }
            _ = try await client.waitFor("initial SETTINGS with MAX_CONCURRENT_STREAMS 1") { $0.maxConcurrentStreams == 1 }
            client.send(streamID: 1, path: "/settings/1000", body: Array("{}".utf8))
            #expect(try await client.status(of: 1) == "200")
            _ = try await client.waitFor("SETTINGS with MAX_CONCURRENT_STREAMS 1000") { $0.maxConcurrentStreams == 1000 }
            // The raised limit is usable: 50 streams at once.
            for index in 1...50 {
                client.send(streamID: 2 * index + 1, path: "/after", body: Array("{}".utf8))
            }
            _ = try await client.completedStream(101)
            #expect(try await client.status(of: 101) == "200")
        }
    }

    @Test("the initial SETTINGS are APNs-like by default")
    func initialSettings() async throws {
        try await withListener { listener in
            let client = try await H2FrameClient.connect(port: listener.port, tls: true)
            defer { Task { await client.close() } }
            let frame = try await client.waitFor("initial SETTINGS") { $0.maxConcurrentStreams != nil }
            guard case .settings(.settings(let values)) = frame.payload else {
                Issue.record("not SETTINGS")
                return
            }
            let byID = Dictionary(values.map { ($0.parameter, $0.value) }, uniquingKeysWith: { $1 })
            #expect(byID[.headerTableSize] == 4096)
            #expect(byID[.maxConcurrentStreams] == 1000)
            #expect(byID[.maxHeaderListSize] == 8000)
            #expect(byID[.maxFrameSize] == 16384)
        }
    }

    @Test("GOAWAY carries the given debug data, the stream still gets its answer, then the connection closes")
    func goAwayWithDebugData() async throws {
        try await withListener { listener in
            let client = try await H2FrameClient.connect(port: listener.port, tls: true)
            client.send(streamID: 1, path: "/goaway", body: Array("{}".utf8))
            let frame = try await client.waitFor("GOAWAY") { if case .goAway = $0.payload { true } else { false } }
            guard case .goAway(let lastStreamID, let errorCode, let opaqueData) = frame.payload else { return }
            #expect(errorCode == .noError)
            #expect(lastStreamID == 1)
            #expect(opaqueData.map { String(buffer: $0) } == #"{"reason":"Shutdown"}"#)
            #expect(try await client.status(of: 1) == "200")
            try await client.channel.closeFuture.get()
        }
    }

    @Test("a GOAWAY asked for after the answer follows the answer's last frame, answered now or later", arguments: [0, 200])
    func goAwayAfterAnswer(delay: Int) async throws {
        try await withListener { listener in
            let client = try await H2FrameClient.connect(port: listener.port, tls: true)
            client.send(streamID: 1, path: "/goaway-after-answer/\(delay)", body: Array("{}".utf8))
            let answer = try await client.completedStream(1)
            let frame = try await client.waitFor("GOAWAY") { if case .goAway = $0.payload { true } else { false } }
            guard case .goAway(let lastStreamID, let errorCode, let opaqueData) = frame.payload else { return }
            #expect(errorCode == .noError)
            #expect(lastStreamID == 1)
            #expect(opaqueData.map { String(buffer: $0) } == #"{"reason":"Shutdown"}"#)
            let frames = client.frames
            let goAwayAt = frames.firstIndex { if case .goAway = $0.payload { true } else { false } }
            let lastOfAnswer = frames.lastIndex { $0.streamID == 1 }
            #expect(answer.contains { if case .data = $0.payload { true } else { false } })
            #expect(goAwayAt != nil && lastOfAnswer != nil && goAwayAt! > lastOfAnswer!, "GOAWAY before the answer's end: \(frames)")
            try await client.channel.closeFuture.get()
        }
    }

    @Test("a responder can reset a stream, and the connection goes on")
    func resetStream() async throws {
        try await withListener { listener in
            let client = try await H2FrameClient.connect(port: listener.port, tls: true)
            defer { Task { await client.close() } }
            client.send(streamID: 1, path: "/reset", body: Array("{}".utf8))
            let frames = try await client.completedStream(1)
            guard case .rstStream(let code) = frames.last?.payload else {
                Issue.record("expected RST_STREAM, got \(frames)")
                return
            }
            #expect(code == .cancel)
            client.send(streamID: 3, path: "/after-reset", body: Array("{}".utf8))
            #expect(try await client.status(of: 3) == "200")
        }
    }

    @Test("a header list over MAX_HEADER_LIST_SIZE gets 431 on that stream only")
    func headerListTooLarge() async throws {
        try await withListener { listener in
            let client = try await H2FrameClient.connect(port: listener.port, tls: true)
            defer { Task { await client.close() } }
            _ = try await client.waitFor("initial SETTINGS") { $0.maxConcurrentStreams != nil }
            let big = (0..<10).map { ("x-big-\($0)", String(repeating: "v", count: 1000)) }
            client.send(streamID: 1, path: "/too-many-headers", headers: big, body: Array("{}".utf8))
            #expect(try await client.status(of: 1) == "431")
            client.send(streamID: 3, path: "/fine", body: Array("{}".utf8))
            #expect(try await client.status(of: 3) == "200")
        }
    }

    @Test("graceful shutdown sends GOAWAY, lets the stream in flight finish, and stops listening")
    func gracefulShutdown() async throws {
        let configuration = ListenerConfiguration(host: "127.0.0.1", port: 0, tls: TestTLS.serverTLS())
        let responder = EchoResponder()
        let listener = try await HTTPListener.bind(configuration: configuration, responder: responder)
        let client = try await H2FrameClient.connect(port: listener.port, tls: true)
        client.send(streamID: 1, path: "/slow/300", body: Array("{}".utf8))
        try await responder.log.waitFor("/slow/300")
        let shutdown = Task { await listener.shutdown() }
        let goAway = try await client.waitFor("GOAWAY") { if case .goAway = $0.payload { true } else { false } }
        guard case .goAway(_, let code, _) = goAway.payload else { return }
        #expect(code == .noError)
        let frames = try await client.completedStream(1)
        #expect(try await client.status(of: 1) == "200")
        #expect(frames.contains { if case .data = $0.payload { true } else { false } })
        await shutdown.value
        #expect(listener.connectionCount == 0)
        // (Connecting again would race with parallel tests that may get the same free port.)
        #expect(!listener.isListening)
    }

    @Test("shutdown closes connections whose streams outlive the grace period")
    func shutdownGraceExpires() async throws {
        let configuration = ListenerConfiguration(host: "127.0.0.1", port: 0, tls: nil, shutdownGracePeriod: .milliseconds(200))
        let responder = EchoResponder()
        let listener = try await HTTPListener.bind(configuration: configuration, responder: responder)
        let client = try await H2FrameClient.connect(port: listener.port, tls: false)
        // A stream that would take ten minutes: the shutdown must end long before it, at the grace
        // period (bounded here by the hang bound, not by what an idle machine takes: seen at 5.02 s
        // with both cores busy).
        client.send(streamID: 1, path: "/slow/600000", body: Array("{}".utf8))
        try await responder.log.waitFor("/slow/600000")
        let started = ContinuousClock.now
        await listener.shutdown()
        #expect(ContinuousClock.now - started < TestDeadline.hang, "the shutdown waited for the stream")
        try await client.channel.closeFuture.get()
        #expect(listener.connectionCount == 0)
    }

    @Test("malformed frames get GOAWAY(PROTOCOL_ERROR) and other connections are unaffected")
    func malformedFrames() async throws {
        try await withListener(tls: false) { listener in
            let healthy = try await H2FrameClient.connect(port: listener.port, tls: false)
            defer { Task { await healthy.close() } }
            let raw = try await RawClient.connect(port: listener.port)
            // DATA on stream 0 is a connection error of type PROTOCOL_ERROR (RFC 9113 §6.1).
            try await raw.send(RawFrame.preface + RawFrame.emptySettings + RawFrame.frame(type: 0x0, flags: 0x1, stream: 0, payload: [1, 2, 3]))
            let bytes = try await raw.waitForClose()
            let goAways = RawFrame.goAways(in: bytes)
            #expect(goAways.contains { $0.errorCode == 0x1 }, "expected GOAWAY(PROTOCOL_ERROR), got \(goAways)")
            healthy.send(streamID: 1, path: "/still-fine", body: Array("{}".utf8))
            #expect(try await healthy.status(of: 1) == "200")
        }
    }

    @Test("a client that is not HTTP at all is answered 400 and closed")
    func garbageInput() async throws {
        try await withListener(tls: false) { listener in
            let raw = try await RawClient.connect(port: listener.port)
            try await raw.send(Array("\u{01}\u{02}garbage\r\n\r\n".utf8))
            let bytes = try await raw.waitForClose()
            #expect(String(decoding: bytes, as: UTF8.self).hasPrefix("HTTP/1.1 400"))
        }
    }
}

extension HTTP2Frame {
    /// The MAX_CONCURRENT_STREAMS of a SETTINGS frame, if it carries one.
    var maxConcurrentStreams: Int? {
        guard case .settings(.settings(let values)) = payload else { return nil }
        return values.last { $0.parameter == .maxConcurrentStreams }?.value
    }
}
