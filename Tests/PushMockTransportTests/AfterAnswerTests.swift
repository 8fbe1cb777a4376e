import AsyncHTTPClient
import Dispatch
import NIOCore
import NIOHTTP1
import NIOPosix
import PushMockTestSupport
import Synchronization
import Testing

@testable import PushMockTransport

/// Work a responder leaves for after its answer runs once the answer is on the wire, and a reader
/// can wait for it (`AnswerLanes.settled()`).
@Suite("Work left for after an answer")
struct AfterAnswerTests {
    /// Answers at once, and leaves work that blocks its event loop until the test has read the
    /// answer: an answer that waited for its work would never arrive in time.
    final class GatedResponder: HTTPResponder, Sendable {
        let gate = DispatchSemaphore(value: 0)
        /// Per piece of work, whether the client had read its answer before the gate timed out.
        let ran = Mutex<[Bool]>([])

        func respond(to request: HTTPServerRequest, context: RequestContext) -> ResponderResult {
            context.control.afterAnswer { [self] in
                let opened = gate.wait(timeout: .now() + .seconds(Int(TestDeadline.hang.components.seconds))) == .success
                ran.withLock { $0.append(opened) }
            }
            return .response(HTTPServerResponse(status: 200, body: Array("answered".utf8)))
        }
    }

    @Test("runs once the answer is written, on HTTP/2 and HTTP/1.1, and settled() returns once it has run", arguments: [false, true])
    func runsAfterTheAnswer(http1Only: Bool) async throws {
        // The server's own loop, so that its blocked work never holds up the client's.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let lanes = AnswerLanes()
        let responder = GatedResponder()
        let configuration = ListenerConfiguration(host: "127.0.0.1", port: 0, tls: TestTLS.serverTLS(), protocolDeadline: nil)
        let listener = try await HTTPListener.bind(configuration: configuration, responder: responder, group: group, lanes: lanes)
        do {
            try await withHTTPClient(http1Only: http1Only) { client in
                for round in 1...2 {
                    let (response, body) = try await client.send("https://localhost:\(listener.port)/round-\(round)")
                    #expect(response.status == .ok)
                    #expect(String(decoding: body, as: UTF8.self) == "answered")
                    // The answer came while its work waits for the gate: it waits for nothing.
                    let settledBeforeTheGate = Task { await lanes.settled() }
                    responder.gate.signal()
                    await settledBeforeTheGate.value
                    #expect(responder.ran.withLock { $0 } == Array(repeating: true, count: round), "the work ran, after its answer was read")
                }
            }
        } catch {
            responder.gate.signal()
            await listener.shutdown()
            try? await group.shutdownGracefully()
            throw error
        }
        await listener.shutdown()
        try await group.shutdownGracefully()
    }

    /// What ran, in order.
    final class RunLog: Sendable {
        let entries = Mutex<[String]>([])
        var all: [String] { entries.withLock { $0 } }
    }

    /// Logs its runs.
    final class Logging: AfterAnswerWork, Sendable {
        let name: String
        let log: RunLog

        init(_ name: String, log: RunLog) {
            self.name = name
            self.log = log
        }

        func runAfterAnswer() { log.entries.withLock { $0.append(name) } }
    }

    @Test("an object left again while it is the last left runs once; work left by work runs in the same pass; settled() waits for all of it")
    func queueOrderAndLanes() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let lanes = AnswerLanes()
        let log = RunLog()
        let queue = try await loop.submit { NIOLoopBound(AfterAnswerQueue(lane: lanes.lane(for: loop)), eventLoop: loop) }.get()
        let first = Logging("a", log: log)
        let second = Logging("b", log: log)
        try await loop.submit {
            queue.value.append(first)
            queue.value.append(first)
            queue.value.append(second)
            queue.value.append(first)
        }.get()
        // Nothing has run: settled() cannot return however often it looks at the loop.
        let returned = RunLog()
        let settled = Task {
            await lanes.settled()
            returned.entries.withLock { $0.append("settled") }
        }
        for _ in 1...20 { try await loop.submit {}.get() }
        #expect(log.all.isEmpty, "queued work waits for the answer's flush")
        #expect(returned.all.isEmpty, "settled() waits while work is queued")
        try await loop.submit {
            let queue = queue.value
            queue.append(AfterAnswerClosure { queue.append(Logging("from work", log: log)) })
            queue.run()
        }.get()
        await settled.value
        #expect(returned.all == ["settled"])
        #expect(log.all == ["a", "b", "a", "from work"], "in order, `a` once for its run of two, and what work left")
        #expect(lanes.lane(for: loop).queued.load(ordering: .relaxed) == 5)
        #expect(lanes.lane(for: loop).ran.load(ordering: .relaxed) == 5)
        try await group.shutdownGracefully()
    }

    @Test("with no connection (ConnectionControl.none), work runs at once")
    func noConnectionRunsAtOnce() {
        let ran = Mutex(false)
        ConnectionControl.none.afterAnswer { ran.withLock { $0 = true } }
        #expect(ran.withLock { $0 })
    }
}
