#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Makes, once, the DEVELOPMENT keys for signing update bundles, and prints their directory:
#   ca.key.pem, ca.cert.pem            a CA (the keyring a development image trusts)
#   signing.key.pem, signing.cert.pem  a signing key and its certificate, issued by that CA
# in INKKIOSK_KEYS (default out/keys/development; out/ is never committed). For development and
# tests only: the keys sit unencrypted on the build machine. A vendor makes its own CA offline and
# keeps it there (docs/DEPLOYMENT.md, "Updating"); this script never runs for them.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
KEYS=${INKKIOSK_KEYS:-$ROOT/out/keys/development}
if [[ -s $KEYS/ca.cert.pem && -s $KEYS/signing.cert.pem && -s $KEYS/signing.key.pem ]]; then
    echo "$KEYS"
    exit 0
fi
mkdir -p "$KEYS"
chmod 0700 "$KEYS"
WORK=$(mktemp -d "$KEYS/.new.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cat >"$WORK/ext.cnf" <<'EOF'
[ik_ca]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[ik_signing]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = critical, codeSigning
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
EOF
# EC P-256: small signatures, fast to check on a board; RAUC (OpenSSL CMS) takes it.
openssl req -x509 -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:P-256 -days 3650 \
    -subj "/O=inkkiosk development/CN=inkkiosk DEVELOPMENT update CA (not for the field)" \
    -extensions ik_ca -config <(cat /etc/ssl/openssl.cnf "$WORK/ext.cnf") \
    -keyout "$WORK/ca.key.pem" -out "$WORK/ca.cert.pem" 2>"$WORK/log" || { cat "$WORK/log" >&2; exit 1; }
openssl req -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:P-256 \
    -subj "/O=inkkiosk development/CN=inkkiosk development bundle signer" \
    -keyout "$WORK/signing.key.pem" -out "$WORK/signing.csr" 2>"$WORK/log" || { cat "$WORK/log" >&2; exit 1; }
openssl x509 -req -in "$WORK/signing.csr" -CA "$WORK/ca.cert.pem" -CAkey "$WORK/ca.key.pem" -CAcreateserial \
    -days 3650 -extfile "$WORK/ext.cnf" -extensions ik_signing -out "$WORK/signing.cert.pem" 2>"$WORK/log" || { cat "$WORK/log" >&2; exit 1; }
chmod 0600 "$WORK"/*.key.pem
mv "$WORK/ca.key.pem" "$WORK/ca.cert.pem" "$WORK/signing.key.pem" "$WORK/signing.cert.pem" "$KEYS/"
echo "dev-keys: made a development CA and signing key in $KEYS" >&2
echo "$KEYS"
