#!/usr/bin/env python3
"""Writes Tests/PushMockCoreTests/Fixtures/web-push/*.json: Web Push messages encrypted (RFC 8291,
aes128gcm) with http-ece and VAPID tokens (RFC 8292) signed with py-vapid, the independent
implementations PushMock's own decryption and VAPID checks are tested against.

    python3 -m venv /tmp/wp && /tmp/wp/bin/pip install http-ece py-vapid
    /tmp/wp/bin/python scripts/interop/webpush_fixtures.py

Each encryption fixture holds the receiving subscription's keys (the private key PushMock keeps,
the auth secret), the body as sent, and either the plaintext or the rule a receiver refuses it by.
Each VAPID fixture holds the request's headers, the endpoint, the time it is judged at, and either
the claims it carries or the rule it breaks. Keys are drawn afresh on every run; the files are
committed, so the tests never need these packages.
"""
import base64
import json
import os
import struct
import sys
import time

import http_ece
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
import py_vapid.jwt
from py_vapid import Vapid02


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def public_bytes(key) -> bytes:
    return key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)


def private_bytes(key) -> bytes:
    return key.private_numbers().private_value.to_bytes(32, "big")


def receiver():
    return ec.generate_private_key(ec.SECP256R1()), os.urandom(16)


def encrypted(plaintext: bytes, ua, auth: bytes, rs: int = 4096) -> bytes:
    sender = ec.generate_private_key(ec.SECP256R1())
    return http_ece.encrypt(plaintext, private_key=sender, dh=public_bytes(ua), auth_secret=auth, rs=rs, version="aes128gcm")


def hand_made(plaintext_record: bytes, ua, auth: bytes, rs: int = 4096) -> bytes:
    """One aes128gcm record with the record's plaintext (delimiter and padding included) as given,
    for the malformed cases http-ece will not make: RFC 8291 §3.4's key schedule, written out."""
    sender = ec.generate_private_key(ec.SECP256R1())
    salt = os.urandom(16)
    secret = sender.exchange(ec.ECDH(), ua.public_key())
    key_info = b"WebPush: info\x00" + public_bytes(ua) + public_bytes(sender)
    ikm = HKDF(hashes.SHA256(), 32, auth, key_info).derive(secret)
    cek = HKDF(hashes.SHA256(), 16, salt, b"Content-Encoding: aes128gcm\x00").derive(ikm)
    nonce = HKDF(hashes.SHA256(), 12, salt, b"Content-Encoding: nonce\x00").derive(ikm)
    header = salt + struct.pack("!L", rs) + bytes([65]) + public_bytes(sender)
    return header + AESGCM(cek).encrypt(nonce, plaintext_record, None)


def encryption_fixtures() -> list:
    fixtures = []

    def add(name, body, ua, auth, plaintext=None, rule=None, note=""):
        fixtures.append({"name": name, "note": note, "privateKey": b64(private_bytes(ua)), "p256dh": b64(public_bytes(ua)),
                         "auth": b64(auth), "body": b64(body), "plaintext": None if plaintext is None else b64(plaintext), "rule": rule})

    ua, auth = receiver()
    text = json.dumps({"title": "Order shipped", "body": "Your parcel is on its way", "url": "https://example.com/o/1"}).encode()
    add("json payload, one record", encrypted(text, ua, auth), ua, auth, plaintext=text)
    add("empty payload, no record", encrypted(b"", ua, auth), ua, auth, rule="headerTooShort",
        note="http-ece encrypts an empty payload as the header alone; a body without a record has nothing to authenticate, "
             "and PushMock refuses it (its choice): send an empty push with no body")
    add("empty payload, one record", hand_made(b"\x02", ua, auth), ua, auth, plaintext=b"")
    big = os.urandom(3993)
    add("3 993 bytes, the most a 4 096-byte body holds", encrypted(big, ua, auth), ua, auth, plaintext=big)
    add("record size 4 096 with a short payload", encrypted(b"hi", ua, auth, rs=4096), ua, auth, plaintext=b"hi")
    add("two records (rs 40)", encrypted(b"a message longer than one small record", ua, auth, rs=40), ua, auth, rule="multipleRecords",
        note="RFC 8291 section 4: an application server MUST encrypt a push message with a single record")
    other, other_auth = receiver()
    add("encrypted to another subscription's key", encrypted(text, other, auth), ua, auth, rule="doesNotDecrypt")
    add("encrypted with another auth secret", encrypted(text, ua, other_auth), ua, auth, rule="doesNotDecrypt")
    good = encrypted(text, ua, auth)
    add("ciphertext altered", good[:-1] + bytes([good[-1] ^ 1]), ua, auth, rule="doesNotDecrypt")
    add("cut short inside the header", good[:40], ua, auth, rule="headerTooShort")
    add("keyid of 64 bytes", good[:20] + bytes([64]) + good[22:], ua, auth, rule="keyIDLength",
        note="RFC 8291 section 4: the keyid is the application server's 65-byte uncompressed P-256 key")
    add("record size under 18", good[:16] + struct.pack("!L", 17) + good[20:], ua, auth, rule="recordSizeTooSmall")
    add("no padding delimiter (all zeros)", hand_made(b"\x00" * 8, ua, auth), ua, auth, rule="badPadding")
    add("delimiter 1 in the last record", hand_made(b"hello\x01", ua, auth), ua, auth, rule="badPadding",
        note="RFC 8188 section 2: the last record's delimiter is 2")
    add("padding after the delimiter", hand_made(b"hello\x02\x00\x00\x00", ua, auth), ua, auth, plaintext=b"hello")
    add("a record longer than rs", hand_made(b"x" * 40 + b"\x02", ua, auth, rs=30), ua, auth, rule="multipleRecords",
        note="records are rs bytes each but the last (RFC 8188 section 2): a body past rs is two records")
    add("sender key not on the curve", good[:21] + b"\x04" + b"\x01" * 64 + good[86:], ua, auth, rule="senderKeyInvalid")
    # The older aesgcm coding (draft-ietf-webpush-encryption-04): salt and the sender's key travel
    # in the Encryption and Crypto-Key headers, padding is a two-byte length first.
    def aesgcm(name, plaintext, to=ua, auth_secret=auth, rule=None, tamper=False):
        sender = ec.generate_private_key(ec.SECP256R1())
        salt = os.urandom(16)
        body = http_ece.encrypt(plaintext, salt=salt, private_key=sender, dh=public_bytes(to), auth_secret=auth_secret, version="aesgcm")
        if tamper:
            body = body[:-1] + bytes([body[-1] ^ 1])
        fixtures.append({"name": name, "note": "", "encoding": "aesgcm", "salt": b64(salt), "dh": b64(public_bytes(sender)),
                         "privateKey": b64(private_bytes(ua)), "p256dh": b64(public_bytes(ua)), "auth": b64(auth), "body": b64(body),
                         "plaintext": None if rule else b64(plaintext), "rule": rule})

    aesgcm("aesgcm: json payload", text)
    aesgcm("aesgcm: empty payload", b"")
    aesgcm("aesgcm: encrypted to another subscription's key", text, to=other, rule="doesNotDecrypt")
    aesgcm("aesgcm: encrypted with another auth secret", text, auth_secret=other_auth, rule="doesNotDecrypt")
    aesgcm("aesgcm: ciphertext altered", text, rule="doesNotDecrypt", tamper=True)
    # RFC 8291 appendix A, verbatim: not made here at all.
    fixtures.append({
        "name": "RFC 8291 appendix A", "note": "the RFC's worked example",
        "privateKey": "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94",
        "p256dh": "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
        "auth": "BTBZMqHH6r4Tts7J_aSIgg",
        "body": "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN",
        "plaintext": b64(b"When I grow up, I want to be a watermelon"), "rule": None})
    return fixtures


def vapid_fixtures() -> list:
    fixtures = []
    now = int(time.time())
    endpoint = "https://localhost:8443/wpush/v2/gAAAAABfixture"
    vapid = Vapid02()
    vapid.generate_keys()
    key = b64(public_bytes(vapid.private_key))
    other = Vapid02()
    other.generate_keys()

    def token(claims, signer=vapid):
        # py_vapid's own JWT signer (Vapid02.sign refuses the bad claims these fixtures need).
        return py_vapid.jwt.sign(dict(claims), signer.private_key)

    def add(name, authorization, rule=None, claims=None, crypto_key=None, note=""):
        fixtures.append({"name": name, "note": note, "endpoint": endpoint, "now": now, "authorization": authorization,
                         "cryptoKey": crypto_key, "key": key, "claims": claims, "rule": rule})

    good = {"aud": "https://localhost:8443", "exp": now + 12 * 3600, "sub": "mailto:push@example.com"}
    add("vapid t=, k=", f"vapid t={token(good)}, k={key}", claims=good)
    add("WebPush with Crypto-Key p256ecdsa", f"WebPush {token(good)}", claims=good, crypto_key=f"p256ecdsa={key}",
        note="the draft form (draft-ietf-webpush-vapid-01) that older libraries send")
    https_sub = dict(good, sub="https://example.com/contact")
    add("an https: subject", f"vapid t={token(https_sub)}, k={key}", claims=https_sub)
    localhost = dict(good, sub="mailto:a@localhost")
    add("a mailto: subject at localhost", f"vapid t={token(localhost)}, k={key}", claims=localhost, rule="subjectLocalhost",
        note="Apple's push service refuses it (web-push issue 947); the others take it")
    add("aud of another origin", f"vapid t={token(dict(good, aud='https://push.example.net'))}, k={key}", rule="audience")
    add("aud with a path", f"vapid t={token(dict(good, aud='https://localhost:8443/wpush'))}, k={key}", rule="audience")
    add("exp passed", f"vapid t={token(dict(good, exp=now - 60))}, k={key}", rule="expired")
    add("exp over 24 hours ahead", f"vapid t={token(dict(good, exp=now + 25 * 3600))}, k={key}", rule="expiryTooFar",
        note="RFC 8292 section 2: exp MUST NOT be more than 24 hours from the time of the request")
    add("no sub", f"vapid t={token({'aud': good['aud'], 'exp': good['exp']})}, k={key}", rule="subjectMissing")
    add("sub not a URL", f"vapid t={token(dict(good, sub='push@example.com'))}, k={key}", rule="subjectNotURL")
    add("no exp", f"vapid t={token({'aud': good['aud'], 'sub': good['sub']})}, k={key}", rule="expiryMissing")
    add("signed by another key", f"vapid t={token(good, signer=other)}, k={key}", rule="signature")
    off_curve = b64(bytes([4]) + bytes([1]) * 64)
    add("k is not a P-256 point", f"vapid t={token(good)}, k={off_curve}", rule="keyInvalid")
    add("no k", f"vapid t={token(good)}", rule="keyMissing")
    add("not a JWT", f"vapid t=abc.def, k={key}", rule="tokenMalformed")
    add("no Authorization", None, rule="authorizationMissing")
    add("Bearer", f"Bearer {token(good)}", rule="schemeUnknown")
    return fixtures


def main() -> int:
    root = os.path.join(os.path.dirname(__file__), "..", "..", "Tests", "PushMockCoreTests", "Fixtures", "web-push")
    os.makedirs(root, exist_ok=True)
    for name, fixtures in (("encryption.json", encryption_fixtures()), ("vapid.json", vapid_fixtures())):
        with open(os.path.join(root, name), "w") as out:
            json.dump(fixtures, out, indent=1)
            out.write("\n")
        print(f"{name}: {len(fixtures)} fixtures")
    return 0


if __name__ == "__main__":
    sys.exit(main())
