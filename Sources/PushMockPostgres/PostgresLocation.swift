import Foundation
import PostgresNIO
import PushMockStore

/// The PostgreSQL client's view of a ``PostgresLocation`` (which `PushMockStore` reads without
/// postgres-nio, so that a configuration can name a database in a build without the store).
extension PostgresLocation {
    /// The client's configuration.
    var clientConfiguration: PostgresClient.Configuration {
        let tls: PostgresClient.Configuration.TLS
        switch sslMode {
        case "require": tls = .require(.makeClientConfiguration())
        case "prefer": tls = .prefer(.makeClientConfiguration())
        default: tls = .disable
        }
        var configuration = PostgresClient.Configuration(host: host, port: port, username: user, password: password, database: database, tls: tls)
        configuration.options.connectTimeout = .seconds(5)
        configuration.options.maximumConnections = 8
        return configuration
    }
}

extension PostgresLocation {
    /// One connection's configuration (the start's probe).
    var connectionConfiguration: PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS
        switch sslMode {
        case "require": tls = .require(try! .init(configuration: .makeClientConfiguration()))
        case "prefer": tls = .prefer(try! .init(configuration: .makeClientConfiguration()))
        default: tls = .disable
        }
        var configuration = PostgresConnection.Configuration(host: host, port: port, username: user, password: password, database: database, tls: tls)
        configuration.options.connectTimeout = .seconds(5)
        return configuration
    }
}
