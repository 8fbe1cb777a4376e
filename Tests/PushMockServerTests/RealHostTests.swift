import PushMockTestSupport
import Testing

@testable import PushMockServer

@Suite("The real host an authority names")
struct RealHostTests {
    @Test(
        "a real name with or without its port, in any case; everything else is no real host",
        arguments: [
            ("api.push.apple.com", RealHost.apns),
            ("api.sandbox.push.apple.com:443", .apns),
            ("API.Development.Push.Apple.COM:2197", .apns),
            ("api-broadcast.push.apple.com:443", .broadcast),
            ("fcm.googleapis.com", .fcm),
            ("FCM.googleapis.com:443", .fcm),
            ("oauth2.googleapis.com:443", .oauth2),
            ("iid.googleapis.com", .iid),
            ("api.push.apple.com:", .apns),  // an empty port is the default one (RFC 3986 §3.2.3)
        ] as [(String, RealHost)])
    func realNames(_ authority: String, _ host: RealHost) {
        #expect(RealHost(authority: authority) == host)
    }

    @Test(
        "addresses, loopback names, other names and empty ones are none",
        arguments: [
            "127.0.0.1:2197", "127.0.0.1", "localhost", "localhost:443", "[::1]:443", "[::1]", "example.com", "example.com:443",
            "api.push.apple.com.example.org", "push.apple.com", "", ":", "m", "[api.push.apple.com]:443",
        ])
    func otherNames(_ authority: String) {
        #expect(RealHost(authority: authority) == nil)
    }
}
