public import Crypto

/// Opens a Web Push message as the receiving browser does: RFC 8291 (Message Encryption for Web
/// Push) over RFC 8188's `aes128gcm` content coding, with the subscription's private key and auth
/// secret, which PushMock holds where a browser would.
///
/// ```swift
/// let plaintext = try WebPushDecryption.open(body, privateKey: keys.privateKey, authSecret: keys.authSecret).plaintext
/// ```
public enum WebPushDecryption {
    /// Why a body does not open, each a rule a receiving browser applies (the message is dropped).
    public enum Rule: String, Sendable, Hashable, Error, CaseIterable {
        case headerTooShort
        case recordSizeTooSmall
        case keyIDLength
        case senderKeyInvalid
        case multipleRecords
        case doesNotDecrypt
        case badPadding

        /// What the rule says, for a rejection's diagnostics.
        public var explanation: String {
            switch self {
            case .headerTooShort:
                "the body is shorter than the aes128gcm header (salt 16, rs 4, idlen 1, keyid 65 bytes) and one 16-byte tag"
            case .recordSizeTooSmall: "the header's record size (rs) is under 18, the least RFC 8188 section 2 allows"
            case .keyIDLength:
                "the header's keyid is not 65 bytes: RFC 8291 section 4 puts the application server's uncompressed P-256 public key there"
            case .senderKeyInvalid: "the header's keyid is not a point on P-256, so no shared secret can be derived"
            case .multipleRecords:
                "the body is longer than one record of the header's rs: RFC 8291 section 4 requires a single record (set rs above the payload's size + 17)"
            case .doesNotDecrypt:
                "the record does not decrypt: it was encrypted to another subscription's p256dh key or auth secret, or altered on the way"
            case .badPadding:
                "the decrypted record has no valid padding delimiter: the last (only) record ends its data with 0x02, then zeros (RFC 8188 section 2)"
            }
        }
    }

    /// A body opened.
    public struct Opened: Sendable, Hashable {
        /// The message as the service worker's `push` event reads it.
        public var plaintext: [UInt8]
        /// The header's record size.
        public var recordSize: Int
        /// How many padding bytes followed the delimiter.
        public var padding: Int
        /// The application server's ephemeral public key (the header's keyid).
        public var senderKey: [UInt8]
    }

    /// The aes128gcm header's fixed part: salt (16), rs (4), idlen (1).
    static let fixedHeader = 21
    static let tagSize = 16

    /// Opens `body` (`Content-Encoding: aes128gcm`) for the subscription whose key pair is
    /// `privateKey` and whose auth secret is `authSecret`.
    public static func open(_ body: [UInt8], privateKey: P256.KeyAgreement.PrivateKey, authSecret: [UInt8]) throws(Rule) -> Opened {
        guard body.count >= fixedHeader else { throw .headerTooShort }
        let salt = Array(body[0..<16])
        let recordSize = body[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let keyIDLength = Int(body[20])
        guard recordSize >= 18 else { throw .recordSizeTooSmall }
        guard keyIDLength == 65 else { throw .keyIDLength }
        let recordStart = fixedHeader + keyIDLength
        guard body.count >= recordStart + tagSize else { throw .headerTooShort }
        let senderKey = Array(body[fixedHeader..<recordStart])
        guard let sender = try? P256.KeyAgreement.PublicKey(x963Representation: senderKey) else { throw .senderKeyInvalid }
        guard body.count - recordStart <= recordSize else { throw .multipleRecords }
        guard let shared = try? privateKey.sharedSecretFromKeyAgreement(with: sender) else { throw .senderKeyInvalid }
        let (key, nonce) = contentKeys(
            shared: shared, authSecret: authSecret, receiverKey: Array(privateKey.publicKey.x963Representation), senderKey: senderKey, salt: salt)
        let record = body[recordStart...]
        let sealed: AES.GCM.SealedBox
        do {
            sealed = try AES.GCM.SealedBox(
                nonce: AES.GCM.Nonce(data: nonce), ciphertext: record.dropLast(tagSize), tag: record.suffix(tagSize))
        } catch {
            throw .doesNotDecrypt
        }
        guard let opened = try? AES.GCM.open(sealed, using: key) else { throw .doesNotDecrypt }
        let plaintext = Array(opened)
        // The last record's data ends with 0x02, then zero or more 0x00 (RFC 8188 section 2).
        guard let delimiter = plaintext.lastIndex(where: { $0 != 0 }), plaintext[delimiter] == 2 else { throw .badPadding }
        return Opened(
            plaintext: Array(plaintext[..<delimiter]), recordSize: recordSize, padding: plaintext.count - delimiter - 1, senderKey: senderKey)
    }

    /// Opens a body in the older `aesgcm` coding (draft-ietf-webpush-encryption-04, which some
    /// libraries still send): the salt from `Encryption: salt=…`, the application server's key from
    /// `Crypto-Key: dh=…`, records of `recordSize` bytes plus a tag, each opening with a two-byte
    /// padding length.
    public static func openAESGCM(
        _ body: [UInt8], salt: [UInt8], senderKey: [UInt8], recordSize: Int = 4096, privateKey: P256.KeyAgreement.PrivateKey,
        authSecret: [UInt8]
    ) throws(Rule) -> Opened {
        guard salt.count == 16 else { throw .headerTooShort }
        guard recordSize > 2 else { throw .recordSizeTooSmall }
        guard senderKey.count == 65 else { throw .keyIDLength }
        guard let sender = try? P256.KeyAgreement.PublicKey(x963Representation: senderKey) else { throw .senderKeyInvalid }
        guard body.count >= tagSize else { throw .headerTooShort }
        guard body.count < recordSize + tagSize else { throw .multipleRecords }
        guard let shared = try? privateKey.sharedSecretFromKeyAgreement(with: sender) else { throw .senderKeyInvalid }
        let receiverKey = Array(privateKey.publicKey.x963Representation)
        let inputKey = shared.hkdfDerivedSymmetricKey(
            using: SHA256.self, salt: authSecret, sharedInfo: Array("Content-Encoding: auth".utf8) + [0], outputByteCount: 32)
        let context = Array("P-256".utf8) + [0, 0, 65] + receiverKey + [0, 65] + senderKey
        let pseudoRandomKey = HKDF<SHA256>.extract(inputKeyMaterial: inputKey, salt: salt)
        let contentKey = HKDF<SHA256>.expand(
            pseudoRandomKey: pseudoRandomKey, info: Array("Content-Encoding: aesgcm".utf8) + [0] + context, outputByteCount: 16)
        let nonce = HMAC<SHA256>.authenticationCode(
            for: Array("Content-Encoding: nonce".utf8) + [0] + context + [1], using: SymmetricKey(data: pseudoRandomKey))
        let sealed: AES.GCM.SealedBox
        do {
            sealed = try AES.GCM.SealedBox(
                nonce: AES.GCM.Nonce(data: Array(nonce.prefix(12))), ciphertext: body.dropLast(tagSize), tag: body.suffix(tagSize))
        } catch {
            throw .doesNotDecrypt
        }
        guard let opened = try? AES.GCM.open(sealed, using: contentKey) else { throw .doesNotDecrypt }
        let plaintext = Array(opened)
        // Two bytes of padding length, that many zeros, then the data.
        guard plaintext.count >= 2 else { throw .badPadding }
        let padding = Int(plaintext[0]) << 8 | Int(plaintext[1])
        guard 2 + padding <= plaintext.count, plaintext[2..<(2 + padding)].allSatisfy({ $0 == 0 }) else { throw .badPadding }
        return Opened(plaintext: Array(plaintext[(2 + padding)...]), recordSize: recordSize, padding: padding, senderKey: senderKey)
    }

    /// The `name=value` pairs of an `aesgcm` message's `Encryption` or `Crypto-Key` header (split at
    /// `;` and `,`; names lowercased): its `salt`, `rs` and the sender's `dh` key.
    public static func headerParameters(_ text: String?) -> [String: String] {
        guard let text else { return [:] }
        return VAPIDCredentials.parameters(Substring(text), separators: [";", ","]).mapValues(String.init)
    }

    /// RFC 8291 section 3.4's key schedule: the content encryption key and the nonce of the first
    /// (only) record.
    static func contentKeys(
        shared: SharedSecret, authSecret: [UInt8], receiverKey: [UInt8], senderKey: [UInt8], salt: [UInt8]
    ) -> (SymmetricKey, [UInt8]) {
        let keyInfo = Array("WebPush: info".utf8) + [0] + receiverKey + senderKey
        let inputKey = shared.hkdfDerivedSymmetricKey(using: SHA256.self, salt: authSecret, sharedInfo: keyInfo, outputByteCount: 32)
        let pseudoRandomKey = HKDF<SHA256>.extract(inputKeyMaterial: inputKey, salt: salt)
        let contentKey = HKDF<SHA256>.expand(
            pseudoRandomKey: pseudoRandomKey, info: Array("Content-Encoding: aes128gcm".utf8) + [0], outputByteCount: 16)
        // HKDF-Expand of 12 bytes is the first HMAC block, cut (RFC 5869 section 2.3).
        let nonce = HMAC<SHA256>.authenticationCode(
            for: Array("Content-Encoding: nonce".utf8) + [0, 1], using: SymmetricKey(data: pseudoRandomKey))
        return (contentKey, Array(nonce.prefix(12)))
    }
}
